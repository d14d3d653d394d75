package dev.floe.worker.config;

import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.time.Duration;

/** What {@code floe compact} does to the sink's table, and how hard; and what the worker compacts itself. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CompactionSpec(
    @JsonPropertyDescription("Cron schedule of the compaction Job (operator), e.g. \"0 */2 * * *\", or @daily.")
        @Pattern(CronSchedules.PATTERN) @Size(max = 100) String schedule,
    @JsonPropertyDescription("Size data files are bin-packed toward, in bytes (default 128 MiB).") @Min(1048576) Long targetFileSize,
    @JsonPropertyDescription("A file group is rewritten when it has at least this many files, or any deletes (default 5).")
        @Min(1) Integer minInputFiles,
    @JsonPropertyDescription("Snapshots older than this are expired, e.g. 3d (default 5d); 0s expires all but retainLast.")
        @Pattern(Durations.PATTERN) @Size(max = Durations.MAX_LENGTH) String expireAfter,
    @JsonPropertyDescription("Snapshots always kept, however old (default 10).") @Min(1) Integer retainLast,
    @JsonPropertyDescription("Unreferenced files younger than this are never removed, e.g. 3d (default 3d).")
        @ValidationRule(value = Durations.POSITIVE_RULE, message = Durations.POSITIVE_MESSAGE)
        @Size(max = Durations.MAX_LENGTH) String orphanAfter,
    @JsonPropertyDescription("Rewrite manifests when a snapshot has more than this many (default 50).") Integer maxManifests,
    @JsonPropertyDescription("Rewrite data files (default true).") Boolean rewrite,
    @JsonPropertyDescription("Expire snapshots (default true).") Boolean expire,
    @JsonPropertyDescription("Remove orphan files (default true).") Boolean removeOrphans,
    @JsonPropertyDescription("Rewrite manifests (default true).") Boolean rewriteManifests,
    @JsonPropertyDescription("Compaction by the worker itself, between Jobs: when idle, and of files past a dead-row fraction.")
        SelfCompactionSpec selfCompaction) {

  public static final CompactionSpec DEFAULTS = new CompactionSpec(null, null, null, null, null, null, null, null, null, null, null);

  /** A compaction spec with the worker's self-compaction at its defaults. */
  public CompactionSpec(String schedule, Long targetFileSize, Integer minInputFiles, String expireAfter, Integer retainLast,
      String orphanAfter, Integer maxManifests, Boolean rewrite, Boolean expire, Boolean removeOrphans, Boolean rewriteManifests) {
    this(schedule, targetFileSize, minInputFiles, expireAfter, retainLast, orphanAfter, maxManifests, rewrite, expire, removeOrphans,
        rewriteManifests, null);
  }

  public CompactionSpec {
    targetFileSize = targetFileSize == null ? 128L << 20 : targetFileSize;
    minInputFiles = minInputFiles == null ? 5 : minInputFiles;
    expireAfter = expireAfter == null ? "5d" : expireAfter;
    retainLast = retainLast == null ? 10 : retainLast;
    orphanAfter = orphanAfter == null ? "3d" : orphanAfter;
    maxManifests = maxManifests == null ? 50 : maxManifests;
    rewrite = rewrite == null || rewrite;
    expire = expire == null || expire;
    removeOrphans = removeOrphans == null || removeOrphans;
    rewriteManifests = rewriteManifests == null || rewriteManifests;
    selfCompaction = selfCompaction == null ? SelfCompactionSpec.DEFAULTS : selfCompaction;
  }

  public Duration expireAfterDuration() {
    return Durations.parse(expireAfter);
  }

  public Duration orphanAfterDuration() {
    return Durations.parse(orphanAfter);
  }
}
