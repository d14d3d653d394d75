package dev.floe.worker.apply;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.io.InputFile;

/**
 * Delete files loaded once for a run of reads (a rewrite group, an index build) instead of once
 * per data file they apply to: Iceberg's generic reader loads every applicable delete file for each
 * data file, so 50 data files written by 50 equality-mode batches loaded 1,225 delete files where
 * 49 do ({@code CompactionBenchmark}).
 * Iceberg's own seam ({@link BaseDeleteLoader#getOrLoad}, as Spark's executor cache uses it) keeps
 * what was loaded; past {@code budgetBytes} (Iceberg's estimate of the loaded sets) a delete file is
 * loaded per read as before, so memory stays bounded.
 */
public final class DeleteCache {
  private final Map<String, Object> loaded = new ConcurrentHashMap<>();
  private final AtomicLong bytes = new AtomicLong();
  private final long budgetBytes;
  private final AtomicLong loads = new AtomicLong();

  public DeleteCache(long budgetBytes) {
    this.budgetBytes = budgetBytes;
  }

  /** A cache of an eighth of the heap's maximum: room beside the primary-key index and a batch. */
  public static DeleteCache ofHeap() {
    return new DeleteCache(Runtime.getRuntime().maxMemory() / 8);
  }

  /** Delete files (or their sets) loaded from storage so far, each counted once per load. */
  public long loads() {
    return loads.get();
  }

  DeleteLoader loader(Function<DeleteFile, InputFile> files) {
    return new BaseDeleteLoader(files) {
      @Override
      protected boolean canCache(long size) {
        return size <= budgetBytes - bytes.get();
      }

      @Override
      @SuppressWarnings("unchecked")
      protected <V> V getOrLoad(String key, Supplier<V> load, long size) {
        Object value = loaded.get(key);
        if (value == null) {
          loads.incrementAndGet();
          value = load.get();
          if (loaded.putIfAbsent(key, value) == null) {
            bytes.addAndGet(size);
          }
        }
        return (V) value;
      }
    };
  }
}
