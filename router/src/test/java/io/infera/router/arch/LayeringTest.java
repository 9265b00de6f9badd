package io.infera.router.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The router's layering (docs/development.md, "Layering"): packages read as the data flow and never
 * form a cycle; the KV core and the policies are plain Java; only the HTTP layer and the transport
 * adapters touch Vert.x, NATS and ZMQ; the admin documents see transports only through {@code
 * EventTransport}.
 */
class LayeringTest {

  private static JavaClasses classes;

  @BeforeAll
  static void load() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.infera.router");
  }

  @Test
  void packagesHaveNoCycles() {
    slices().matching("io.infera.router.(*)..").should().beFreeOfCycles().check(classes);
  }

  @Test
  void theKvCoreAndThePoliciesArePlainJava() {
    noClasses()
        .that()
        .resideInAnyPackage("io.infera.router.kv..", "io.infera.router.policy..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.vertx..", "io.nats..", "org.zeromq..", "zmq..", "io.micrometer..", "io.fabric8..")
        .check(classes);
  }

  @Test
  void theKvCoreDependsOnNothingOfTheRouterButJson() {
    noClasses()
        .that()
        .resideInAPackage("io.infera.router.kv..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.infera.router.policy..",
            "io.infera.router.routing..",
            "io.infera.router.events..",
            "io.infera.router.relay..",
            "io.infera.router.http..",
            "io.infera.router.admin..",
            "io.infera.router.runtime..",
            "io.infera.router.cli..",
            "io.infera.router.discovery..",
            "io.infera.router.tokenize..")
        .check(classes);
  }

  @Test
  void onlyTheHttpLayerUsesVertx() {
    noClasses()
        .that()
        .resideOutsideOfPackages("io.infera.router.http..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.vertx..")
        .check(classes);
  }

  @Test
  void onlyTransportsTheRelayAndTheNatsContractTalkNatsOrZmq() {
    noClasses()
        .that()
        .resideOutsideOfPackages(
            "io.infera.router.events..", "io.infera.router.relay..", "io.infera.router.nats..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.nats..", "org.zeromq..", "zmq..")
        .check(classes);
  }

  @Test
  void nothingBelowTheHttpLayerDependsOnIt() {
    noClasses()
        .that()
        .resideOutsideOfPackages("io.infera.router.http..", "io.infera.router.cli..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.infera.router.http..")
        .check(classes);
  }

  @Test
  void theCompositionRootIsUsedOnlyByItsServers() {
    noClasses()
        .that()
        .resideOutsideOfPackages(
            "io.infera.router.runtime..",
            "io.infera.router.http..",
            "io.infera.router.admin..",
            "io.infera.router.cli..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.infera.router.runtime..")
        .check(classes);
  }
}
