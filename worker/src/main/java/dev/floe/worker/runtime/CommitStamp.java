package dev.floe.worker.runtime;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metadata a worker puts on its advisory group-offset commits: when it last committed a
 * snapshot, and which. The operator reads it with the lag (Kafka's Admin client), so a sink's
 * last commit shows in its status without the operator reaching the catalog.
 */
public final class CommitStamp {
  private static final Pattern STAMP = Pattern.compile("floe commit=(\\S+) snapshot=(-?\\d+)");

  private CommitStamp() {}

  /** The metadata of offsets committed after a snapshot was written at {@code time}. */
  public static String of(Instant time, long snapshotId) {
    return "floe commit=" + time + " snapshot=" + snapshotId;
  }

  /** The commit time in offset metadata written by {@link #of}, if it is such. */
  public static Optional<Instant> timeOf(String metadata) {
    Matcher m = metadata == null ? null : STAMP.matcher(metadata);
    if (m == null || !m.matches()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(m.group(1)));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /** The snapshot id in offset metadata written by {@link #of}, if it is such. */
  public static Optional<Long> snapshotOf(String metadata) {
    Matcher m = metadata == null ? null : STAMP.matcher(metadata);
    return m != null && m.matches() ? Optional.of(Long.parseLong(m.group(2))) : Optional.empty();
  }
}
