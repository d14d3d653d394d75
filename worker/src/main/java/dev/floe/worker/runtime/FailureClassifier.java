package dev.floe.worker.runtime;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Tells a failure that no retry can cure (permission denied, a read-only or impossible location,
 * a namespace that does not exist) from an outage worth waiting out (a timeout, a refused
 * connection, a 5xx, a commit whose outcome is unknown). Pure: it only reads the cause chain.
 */
public final class FailureClassifier {
  /** What to do about a failure. */
  public enum Kind { PERMANENT, TRANSIENT }

  /** Failures retrying cannot cure, by class name (some live in optional jars: S3, Hadoop). */
  private static final Set<String> PERMANENT_CLASSES = Set.of(
      "java.nio.file.AccessDeniedException",
      "java.nio.file.ReadOnlyFileSystemException",
      "java.nio.file.NotDirectoryException",
      "java.lang.SecurityException",
      "org.apache.iceberg.exceptions.ForbiddenException",
      "org.apache.iceberg.exceptions.NotAuthorizedException",
      "org.apache.iceberg.exceptions.NoSuchNamespaceException",
      "org.apache.hadoop.security.AccessControlException",
      "org.apache.hadoop.fs.PathPermissionException",
      "dev.floe.worker.decode.avro.SchemaRegistryRefusedException");

  /**
   * Failures that are outages or races. ValidationException is one of them: the engine raises it
   * for a commit planned on a table state that changed meanwhile (a compaction, a schema change),
   * which a re-plan cures.
   */
  private static final Set<String> TRANSIENT_CLASSES = Set.of(
      "org.apache.iceberg.exceptions.CommitStateUnknownException",
      "org.apache.iceberg.exceptions.CommitFailedException",
      "org.apache.iceberg.exceptions.ServiceUnavailableException",
      "org.apache.iceberg.exceptions.ValidationException",
      "dev.floe.worker.commit.ConcurrentSinkCommitException",
      "java.net.ConnectException",
      "java.net.SocketTimeoutException",
      "java.net.UnknownHostException",
      "java.net.http.HttpTimeoutException",
      "java.util.concurrent.TimeoutException",
      "org.apache.kafka.common.errors.RetriableException",
      "dev.floe.worker.decode.avro.SchemaRegistryUnavailableException");

  /**
   * The operating system's words for a refusal, as they reach us through wrappers that keep only
   * the message (Hadoop's local file system turns EACCES, EROFS and EPERM into plain IOExceptions).
   */
  private static final List<String> PERMANENT_MESSAGES = List.of(
      "permission denied", "read-only file system", "operation not permitted", "mkdirs failed to create",
      "attempt to write a readonly database");

  private FailureClassifier() {}

  /**
   * Walks the cause chain from the outside in; the first link known by its type (or HTTP status)
   * decides, and only when none is known do the messages (wrappers repeat their cause's message, so
   * a message must not outrank a type deeper down). A failure nothing recognises is treated as an
   * outage, as before: wrongly retrying is visible (not ready, commit failures) and cheap, wrongly
   * stopping a healthy sink is not.
   */
  public static Kind classify(Throwable failure) {
    List<Throwable> chain = chain(failure);
    for (Throwable t : chain) {
      Kind kind = byType(t);
      if (kind != null) {
        return kind;
      }
    }
    for (Throwable t : chain) {
      String message = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
      if (PERMANENT_MESSAGES.stream().anyMatch(message::contains)) {
        return Kind.PERMANENT;
      }
    }
    return Kind.TRANSIENT;
  }

  public static boolean isPermanent(Throwable failure) {
    return classify(failure) == Kind.PERMANENT;
  }

  private static List<Throwable> chain(Throwable failure) {
    List<Throwable> out = new ArrayList<>();
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
      out.add(t);
    }
    return out;
  }

  private static Kind byType(Throwable t) {
    for (Class<?> c = t.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
      if (PERMANENT_CLASSES.contains(c.getName())) {
        return Kind.PERMANENT;
      }
      if (TRANSIENT_CLASSES.contains(c.getName())) {
        return Kind.TRANSIENT;
      }
    }
    Integer status = httpStatus(t);
    if (status != null) {
      if (status == 401 || status == 403) {
        return Kind.PERMANENT; // credentials or a policy; a 404 can be a race with cleanup, so it is not decided here
      }
      if (status >= 500 || status == 429 || status == 408) {
        return Kind.TRANSIENT;
      }
    }
    return null;
  }

  /** The HTTP status of an AWS SDK service error (S3), read reflectively: the SDK is an optional runtime jar. */
  private static Integer httpStatus(Throwable t) {
    for (Class<?> c = t.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
      if (c.getName().equals("software.amazon.awssdk.core.exception.SdkServiceException")) {
        try {
          return (Integer) c.getMethod("statusCode").invoke(t);
        } catch (ReflectiveOperationException | ClassCastException e) {
          return null; // another SDK shape: fall back to the message
        }
      }
    }
    return null;
  }

  /** The failure and its causes on one line, "Outer: message; caused by Inner: message", for logs and stop reasons. */
  public static String describe(Throwable failure) {
    StringBuilder out = new StringBuilder();
    for (Throwable t : chain(failure)) {
      if (out.length() > 0) {
        out.append("; caused by ");
      }
      out.append(t.getClass().getName()).append(": ").append(t.getMessage());
    }
    return out.toString();
  }
}
