package io.infera.jinja;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The engine is a leaf: it depends on the JDK and itself, nothing else (no third-party jar). */
@AnalyzeClasses(packages = "io.infera.jinja", importOptions = ImportOption.DoNotIncludeTests.class)
class JinjaLayeringTest {

  @ArchTest
  static final ArchRule theEngineDependsOnlyOnJavaAndItself =
      classes()
          .that()
          .resideInAPackage("io.infera.jinja..")
          .should()
          .onlyDependOnClassesThat()
          .resideInAnyPackage("java..", "io.infera.jinja..");
}
