package io.infera.router.events;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The event plane's layering: transports, the relay and the NATS contract sit below the application
 * (admin, routing, runtime, HTTP, CLI), the transport-neutral core of {@code events} knows no
 * concrete transport, and {@code policy} stays plain Java.
 */
@AnalyzeClasses(
    packages = {
      "io.infera.router.events",
      "io.infera.router.relay",
      "io.infera.router.nats",
      "io.infera.router.policy"
    },
    importOptions = ImportOption.DoNotIncludeTests.class)
class EventPlaneLayeringTest {

  @ArchTest
  static final ArchRule theEventPlaneDoesNotDependOnTheApplication =
      noClasses()
          .that()
          .resideInAnyPackage(
              "io.infera.router.events..", "io.infera.router.relay..", "io.infera.router.nats..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.infera.router.admin..",
              "io.infera.router.routing..",
              "io.infera.router.runtime..",
              "io.infera.router.http..",
              "io.infera.router.cli..");

  @ArchTest
  static final ArchRule theEventsCoreKnowsNoConcreteTransport =
      noClasses()
          .that()
          .resideInAPackage("io.infera.router.events")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.infera.router.events.zmq..",
              "io.infera.router.events.nats..",
              "io.infera.router.events.inproc..",
              "io.nats..",
              "org.zeromq..");

  @ArchTest
  static final ArchRule theNatsContractIsUsedNotImplementedByTheEventPlane =
      noClasses()
          .that()
          .resideInAPackage("io.infera.router.nats..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.infera.router.events..", "io.infera.router.relay..", "io.infera.router.policy..");

  @ArchTest
  static final ArchRule policyStaysPlainJava =
      noClasses()
          .that()
          .resideInAPackage("io.infera.router.policy..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.nats..",
              "io.vertx..",
              "io.micrometer..",
              "io.infera.router.nats..",
              "io.infera.router.events..");

  @ArchTest
  static final ArchRule theEventPlanesPackagesHaveNoCycles =
      slices().matching("io.infera.router.(**)").should().beFreeOfCycles();
}
