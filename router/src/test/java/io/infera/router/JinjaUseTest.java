package io.infera.router;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The Jinja engine is the tokenize package's business: every other package goes through the
 * tokenize API (e.g. {@code ChatTemplateException}), so the engine can change behind it.
 */
@AnalyzeClasses(packages = "io.infera.router", importOptions = ImportOption.DoNotIncludeTests.class)
class JinjaUseTest {

  @ArchTest
  static final ArchRule onlyTokenizeUsesTheJinjaEngine =
      noClasses()
          .that()
          .resideOutsideOfPackage("io.infera.router.tokenize")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.infera.jinja..");
}
