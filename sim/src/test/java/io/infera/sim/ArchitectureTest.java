package io.infera.sim;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The simulator's layering: no cycles between its packages, and the engine model ({@code sched},
 * {@code kvcache}) is plain Java — no Vert.x, nothing of the benchmark — so the virtual-time driver
 * and the live engines run the same model.
 */
class ArchitectureTest {

  static JavaClasses sim;

  @BeforeAll
  static void importMainClasses() {
    sim =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.infera.sim");
  }

  static final ArchRule NO_PACKAGE_CYCLES =
      slices().matching("io.infera.sim.(*)..").should().beFreeOfCycles();

  static final ArchRule ENGINE_MODEL_IS_PLAIN_JAVA =
      noClasses()
          .that()
          .resideInAnyPackage("io.infera.sim.sched..", "io.infera.sim.kvcache..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.vertx..", "io.infera.sim.bench..")
          .because("the engine model is shared by the live engines and the virtual-time driver");

  /** The rules reject the fixtures that break them: they can fail. */
  @Test
  void theRulesCatchViolations() {
    JavaClasses fixtures =
        new ClassFileImporter()
            .importPackages("io.infera.sim")
            .that(
                com.tngtech.archunit.base.DescribedPredicate.describe(
                    "the violation fixtures",
                    c -> c.getSimpleName().startsWith("LayeringViolation")));
    assertThat(fixtures).hasSize(2);
    assertThat(NO_PACKAGE_CYCLES.evaluate(fixtures).hasViolation()).isTrue();
    assertThat(ENGINE_MODEL_IS_PLAIN_JAVA.evaluate(fixtures).getFailureReport().getDetails())
        .anyMatch(d -> d.contains("io.vertx.core.Vertx"))
        .anyMatch(d -> d.contains("LayeringViolationPeer"));
  }

  @Test
  void packagesHaveNoCycles() {
    NO_PACKAGE_CYCLES.check(sim);
  }

  @Test
  void theEngineModelDependsOnNeitherVertxNorTheBench() {
    ENGINE_MODEL_IS_PLAIN_JAVA.check(sim);
  }
}
