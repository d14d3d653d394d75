package dev.floe.worker.runtime;

import static dev.floe.worker.runtime.FailureClassifier.Kind.PERMANENT;
import static dev.floe.worker.runtime.FailureClassifier.Kind.TRANSIENT;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.apache.iceberg.exceptions.ValidationException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Which failures stop a sink with their cause, and which are outages to wait out. */
class FailureClassifierTest {

  @Test
  void refusalsThatNoRetryCuresArePermanentThroughTheirWrappers() {
    assertThat(FailureClassifier.classify(new RuntimeIOException(new AccessDeniedException("/lake/t/metadata")))).isEqualTo(PERMANENT);
    assertThat(FailureClassifier.classify(new UncheckedIOException(new FileSystemException("/lake", null, "Read-only file system"))))
        .isEqualTo(PERMANENT);
    // Hadoop's local file system, writing under /proc: the OS's reason is gone, only its words remain
    assertThat(FailureClassifier.classify(new RuntimeIOException(new IOException("Mkdirs failed to create /proc/lake/t/metadata (exists=false)"),
        "Failed to create file: %s", "/proc/lake/t/metadata/0.json"))).isEqualTo(PERMANENT);
    assertThat(FailureClassifier.classify(new RuntimeIOException(new IOException("/lake/x.parquet (Permission denied)"), "write"))).isEqualTo(PERMANENT);
    assertThat(FailureClassifier.classify(new ForbiddenException("Forbidden: not allowed to write lake.orders"))).isEqualTo(PERMANENT);
    assertThat(FailureClassifier.classify(new NotAuthorizedException("Not authorized: token expired"))).isEqualTo(PERMANENT);
    assertThat(FailureClassifier.classify(new NoSuchNamespaceException("Namespace does not exist: lake"))).isEqualTo(PERMANENT);
    assertThat(FailureClassifier.classify(new RuntimeException("write failed",
        S3Exception.builder().statusCode(403).message("Access Denied").build()))).isEqualTo(PERMANENT);
  }

  @Test
  void outagesAndRacesAreTransient() {
    assertThat(FailureClassifier.classify(new RuntimeIOException(new ConnectException("Connection refused"), "write"))).isEqualTo(TRANSIENT);
    assertThat(FailureClassifier.classify(new UncheckedIOException(new SocketTimeoutException("Read timed out")))).isEqualTo(TRANSIENT);
    assertThat(FailureClassifier.classify(new CommitStateUnknownException(new RuntimeException("504 from the catalog")))).isEqualTo(TRANSIENT);
    assertThat(FailureClassifier.classify(new ServiceUnavailableException("catalog restarting"))).isEqualTo(TRANSIENT);
    assertThat(FailureClassifier.classify(new IllegalStateException("could not commit after 10 attempts",
        new CommitFailedException("stale")))).isEqualTo(TRANSIENT);
    assertThat(FailureClassifier.classify(new ValidationException("the table's schema changed since the batch was planned"))).isEqualTo(TRANSIENT);
    assertThat(FailureClassifier.classify(new RuntimeException("write failed",
        S3Exception.builder().statusCode(503).message("Slow Down").build()))).isEqualTo(TRANSIENT);
    // the first known link decides: a timeout whose message happens to quote a denied path is still a timeout
    assertThat(FailureClassifier.classify(new UncheckedIOException(new SocketTimeoutException("Permission denied?")))).isEqualTo(TRANSIENT);
  }

  @Test
  void anUnknownFailureIsRetriedAsBefore() {
    assertThat(FailureClassifier.classify(new RuntimeException("something odd"))).isEqualTo(TRANSIENT);
    RuntimeException loop = new RuntimeException("outer");
    RuntimeException inner = new RuntimeException("inner", loop);
    loop.initCause(inner);
    assertThat(FailureClassifier.classify(loop)).isEqualTo(TRANSIENT);
  }

  @Test
  void theDescriptionKeepsTheWholeCauseChain() {
    String text = FailureClassifier.describe(new RuntimeIOException(new IOException("Mkdirs failed to create /proc/lake"), "Failed to create file"));
    assertThat(text).isEqualTo("org.apache.iceberg.exceptions.RuntimeIOException: Failed to create file; "
        + "caused by java.io.IOException: Mkdirs failed to create /proc/lake");
  }
}
