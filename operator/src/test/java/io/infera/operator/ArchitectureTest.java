package io.infera.operator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator's layering: no package cycles; the {@code desired} builders are pure (no reconciler,
 * dependents or Kubernetes client); {@code status} never reaches back into the reconciler.
 */
class ArchitectureTest {

  private static final String ROOT = "io.infera.operator";

  private static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    main =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(ROOT);
  }

  @Test
  void noCyclesBetweenPackages() {
    ArchRule rule = slices().matching(ROOT + ".(*)..").should().beFreeOfCycles();
    rule.check(main);
  }

  @Test
  void desiredBuildersArePure() {
    ArchRule rule =
        noClasses()
            .that()
            .resideInAPackage(ROOT + ".desired..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                ROOT + ".reconciler..", ROOT + ".dependent..", "io.fabric8.kubernetes.client..")
            .because("the render CLI and the dependents call the same builders, without a cluster");
    rule.check(main);
  }

  @Test
  void statusDependsNeitherOnTheReconcilerNorOnJosdk() {
    ArchRule rule =
        noClasses()
            .that()
            .resideInAPackage(ROOT + ".status..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(ROOT + ".reconciler..", "io.javaoperatorsdk..")
            .because(
                "the reconciler is JOSDK glue that calls status, not the other way round; status"
                    + " is tested without JOSDK");
    rule.check(main);
  }
}
