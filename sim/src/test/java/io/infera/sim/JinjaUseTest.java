package io.infera.sim;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The simulator renders chat templates only through the router's tokenize API, never the engine.
 */
@AnalyzeClasses(packages = "io.infera.sim", importOptions = ImportOption.DoNotIncludeTests.class)
class JinjaUseTest {

  @ArchTest
  static final ArchRule noSimClassUsesTheJinjaEngine =
      noClasses()
          .that()
          .resideInAPackage("io.infera.sim..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.infera.jinja..");
}
