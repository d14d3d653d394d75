package dev.floe.worker.testing;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;

/** An S3 endpoint on loopback (S3Proxy over a directory), spoken to by Iceberg's S3FileIO. */
public final class S3Endpoint implements AutoCloseable {
  public static final String ACCESS_KEY = "floe-access";
  public static final String SECRET_KEY = "floe-secret";

  private S3Proxy proxy;
  private final BlobStoreContext context;
  private final int port;

  public S3Endpoint(Path dir, String bucket) throws Exception {
    Properties props = new Properties();
    props.setProperty("jclouds.filesystem.basedir", dir.toString());
    context = ContextBuilder.newBuilder("filesystem").overrides(props).build(BlobStoreContext.class);
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort(); // fixed, so a restarted endpoint is found at the same address
    }
    start();
    context.getBlobStore().createContainerInLocation(null, bucket);
  }

  /** Starts (or restarts after {@link #stop()}) the endpoint on its port. */
  public void start() throws Exception {
    proxy = S3Proxy.builder()
        .blobStore(context.getBlobStore())
        .endpoint(URI.create("http://127.0.0.1:" + port))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
        .ignoreUnknownHeaders(true)
        .build();
    proxy.start();
    while (!proxy.getState().equals("STARTED")) {
      Thread.sleep(10);
    }
  }

  /** Stops the endpoint: an S3 outage. */
  public void stop() throws Exception {
    proxy.stop();
  }

  public String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  /** Catalog properties that make Iceberg write through S3FileIO to this endpoint. */
  public Map<String, String> fileIoProperties() {
    return Map.of(
        "io-impl", "org.apache.iceberg.aws.s3.S3FileIO",
        "s3.endpoint", endpoint(),
        "s3.path-style-access", "true",
        "s3.access-key-id", ACCESS_KEY,
        "s3.secret-access-key", SECRET_KEY,
        "client.region", "us-east-1");
  }

  @Override
  public void close() throws Exception {
    proxy.stop();
    context.close();
  }
}
