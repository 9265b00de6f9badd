package io.infera.operator.testing;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.InferaDeploymentSpec;
import io.infera.operator.api.v1alpha1.PoolRole;
import io.infera.operator.api.v1alpha1.PoolSpec;
import io.infera.operator.desired.BuildResult;
import io.infera.operator.desired.DesiredFleet;
import io.infera.operator.desired.Fleet;
import io.infera.operator.render.ResourceParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** InferaDeployments for tests, and the repository's files. */
public final class Fixtures {

  public static final String UID = "6f1c2d3e-0000-4000-8000-000000000001";

  private Fixtures() {}

  /** The repository root ({@code infera.repo.root} from the build, else the parent directory). */
  public static Path repoRoot() {
    String root = System.getProperty("infera.repo.root");
    return (root == null ? Path.of("..") : Path.of(root)).toAbsolutePath().normalize();
  }

  /** The operator module's directory. */
  public static Path moduleDir() {
    return repoRoot().resolve("operator");
  }

  public static Path sample(String name) {
    return repoRoot().resolve("config/samples").resolve(name);
  }

  public static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + p, e);
    }
  }

  /** A sample parsed as the API server would hand it to the operator (with a uid). */
  public static InferaDeployment parseSample(String name) {
    try {
      InferaDeployment idep = ResourceParser.parse(read(sample(name)), name);
      idep.getMetadata().setUid(UID);
      return idep;
    } catch (ResourceParser.ParseException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /** {@code demo} in {@code ns}, engine {@code engine}, one pool per role given. */
  public static InferaDeployment idep(Engine engine, PoolRole... roles) {
    InferaDeployment idep = new InferaDeployment();
    idep.setMetadata(
        new ObjectMetaBuilder().withName("demo").withNamespace("ns").withUid(UID).build());
    InferaDeploymentSpec spec = new InferaDeploymentSpec();
    spec.setModel("Qwen/Qwen3-0.6B");
    spec.setEngine(engine);
    List<PoolSpec> pools = new ArrayList<>();
    for (PoolRole role : roles) {
      pools.add(pool(role.value(), role, 2, engine == Engine.SIM ? 0 : 1));
    }
    spec.setPools(pools);
    if (engine == Engine.ATOM) {
      // ATOM serves no /tokenize: its routers tokenize locally (the CRD requires a source).
      spec.getRouter().setTokenizer(new io.infera.operator.api.v1alpha1.TokenizerSpec());
      spec.getRouter().getTokenizer().setHub("Qwen/Qwen3-0.6B");
    }
    idep.setSpec(spec);
    return idep;
  }

  public static PoolSpec pool(String name, PoolRole role, int replicas, int gpu) {
    PoolSpec p = new PoolSpec();
    p.setName(name);
    p.setRole(role);
    p.setReplicas(replicas);
    p.getResources().setGpu(gpu);
    p.getResources().setMemory(new Quantity("16Gi"));
    return p;
  }

  /** The fleet of a valid resource; fails the test with the reason otherwise. */
  public static Fleet fleet(InferaDeployment idep) {
    BuildResult r = DesiredFleet.build(idep);
    if (r instanceof BuildResult.Invalid invalid) {
      throw new AssertionError("expected a valid resource: " + invalid.message());
    }
    return ((BuildResult.Built) r).fleet();
  }

  /** The refusal of an invalid resource; fails the test if it builds. */
  public static BuildResult.Invalid invalid(InferaDeployment idep) {
    BuildResult r = DesiredFleet.build(idep);
    if (r instanceof BuildResult.Built) {
      throw new AssertionError("expected the resource to be refused");
    }
    return (BuildResult.Invalid) r;
  }
}
