package io.infera.router.cli;

import picocli.CommandLine.IVersionProvider;

/** Reports the jar's version (from the manifest when packaged). */
final class Version implements IVersionProvider {
  @Override
  public String[] getVersion() {
    String v = InferaRouter.class.getPackage().getImplementationVersion();
    return new String[] {"infera-router " + (v == null ? "dev" : v)};
  }
}
