package dev.floe.e2e;

import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.CatalogType;
import dev.floe.worker.testing.S3Endpoint;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * S3 through S3Proxy on loopback (in this JVM, over a directory) and Iceberg's REST catalog test
 * server (a child JVM, SQLite backend on disk, S3FileIO). Either can be stopped and restarted on
 * the same port: an outage.
 */
final class RestS3Lake implements Lake {
  static final String BUCKET = "lake";

  private final Path dir;
  private final S3Endpoint s3;
  private final int restPort = freePort();
  private Process rest;

  RestS3Lake(Path dir) throws Exception {
    this.dir = dir;
    s3 = new S3Endpoint(Files.createDirectories(dir.resolve("s3")), BUCKET);
    startCatalog();
  }

  @Override
  public CatalogSpec catalog() {
    return new CatalogSpec(CatalogType.REST, "http://127.0.0.1:" + restPort, "s3://" + BUCKET + "/warehouse", null, null, s3.fileIoProperties());
  }

  void startS3() throws Exception {
    s3.start();
  }

  void stopS3() throws Exception {
    s3.stop();
  }

  void startCatalog() throws Exception {
    String classpath = Files.readString(Path.of(System.getProperty("floe.rest.classpath"))).strip()
        + java.io.File.pathSeparator + System.getProperty("floe.rest.classes");
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-Daws.requestChecksumCalculation=WHEN_REQUIRED",
        "-Daws.responseChecksumValidation=WHEN_REQUIRED", "-cp", classpath, "dev.floe.e2e.rest.RestCatalogMain"));
    ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("rest-catalog.log").toFile()));
    Map<String, String> env = b.environment();
    env.put("CATALOG_REST_PORT", String.valueOf(restPort));
    env.put("CATALOG_URI", "jdbc:sqlite:file:" + dir.resolve("rest-catalog.db"));
    env.put("CATALOG_WAREHOUSE", "s3://" + BUCKET + "/warehouse");
    env.put("CATALOG_IO__IMPL", "org.apache.iceberg.aws.s3.S3FileIO");
    env.put("CATALOG_S3_ENDPOINT", s3.endpoint());
    env.put("CATALOG_S3_PATH__STYLE__ACCESS", "true");
    env.put("CATALOG_S3_ACCESS__KEY__ID", S3Endpoint.ACCESS_KEY);
    env.put("CATALOG_S3_SECRET__ACCESS__KEY", S3Endpoint.SECRET_KEY);
    env.put("CATALOG_CLIENT_REGION", "us-east-1");
    env.put("AWS_REGION", "us-east-1");
    rest = b.start();
    awaitCatalog(Duration.ofSeconds(60));
  }

  void stopCatalog() throws InterruptedException {
    rest.destroyForcibly();
    rest.waitFor(30, TimeUnit.SECONDS);
  }

  private void awaitCatalog(Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!rest.isAlive()) {
        throw new IllegalStateException("the REST catalog exited; see " + dir.resolve("rest-catalog.log"));
      }
      try {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + restPort + "/v1/config").toURL().openConnection();
        if (c.getResponseCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("the REST catalog did not start within " + timeout);
  }

  @Override
  public void close() throws Exception {
    if (rest != null) {
      stopCatalog();
    }
    s3.close();
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
