package dev.floe.worker.apply;

import dev.floe.worker.fold.RowKey;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.zip.CRC32;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.GenericBlobMetadata;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.puffin.Blob;
import org.apache.iceberg.puffin.BlobMetadata;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinReader;
import org.apache.iceberg.puffin.PuffinWriter;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.util.Pair;
import org.apache.kafka.common.utils.ByteBufferOutputStream;

/**
 * Keeps the primary-key index beside the table: a Puffin blob in a statistics file of the snapshot
 * it was taken at, so a worker starting from zero loads it and catches up instead of rescanning.
 * The blob names its snapshot, key columns and merge-state columns and ends with a checksum;
 * anything that does not match is ignored and the index rebuilt, never trusted. Version 2 added
 * the merge state ({@link MergeState}); a version-1 blob is never read, so such a table's index is
 * rebuilt once.
 */
public final class PersistedIndex {
  public static final String BLOB_TYPE = "floe-primary-key-index-v2";
  private static final int HISTORY = 200;

  private PersistedIndex() {}

  /** Writes the index as of its snapshot and attaches it to that snapshot. */
  public static void save(Table table, PrimaryKeyIndex index, TableLayout layout) {
    attach(table, encoded(table, index, layout).write(table.io()));
  }

  /**
   * The index encoded as of its snapshot, to write later: the index may change once this returns,
   * and writing (the slow part at millions of keys) needs nothing but the table's file IO, so it can
   * run beside the next batch.
   */
  public static Encoded encoded(Table table, PrimaryKeyIndex index, TableLayout layout) {
    byte[] payload = encode(index, layout);
    Snapshot snapshot = table.snapshot(index.snapshotId());
    String path = table.locationProvider().newDataLocation("floe-index-" + index.snapshotId() + "-" + UUID.randomUUID() + ".puffin")
        .replace("/data/", "/metadata/");
    return new Encoded(path, snapshot.snapshotId(), snapshot.sequenceNumber(), keyFieldIds(layout), payload);
  }

  /** An encoded index and where it goes. */
  public static final class Encoded {
    private final String path;
    private final long snapshotId;
    private final long sequenceNumber;
    private final List<Integer> keyFieldIds;
    private final byte[] payload;

    private Encoded(String path, long snapshotId, long sequenceNumber, List<Integer> keyFieldIds, byte[] payload) {
      this.path = path;
      this.snapshotId = snapshotId;
      this.sequenceNumber = sequenceNumber;
      this.keyFieldIds = keyFieldIds;
      this.payload = payload;
    }

    /** Writes the Puffin file; the statistics file it returns is for {@link #attach}. */
    public StatisticsFile write(FileIO io) {
      try (PuffinWriter writer = Puffin.write(io.newOutputFile(path)).createdBy("floe").build()) {
        writer.add(new Blob(BLOB_TYPE, keyFieldIds, snapshotId, sequenceNumber, ByteBuffer.wrap(payload)));
        writer.finish();
        return new GenericStatisticsFile(snapshotId, path, writer.fileSize(), writer.footerSize(),
            GenericBlobMetadata.from(writer.writtenBlobsMetadata()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** Attaches a written index to its snapshot (a metadata commit, no new snapshot). */
  public static void attach(Table table, StatisticsFile written) {
    table.updateStatistics().setStatistics(written).commit();
  }

  /** The newest persisted index on an ancestor of {@code snapshotId} (or on it), if any can be trusted. */
  public static PrimaryKeyIndex loadNewest(Table table, long snapshotId, TableLayout layout) {
    Map<Long, StatisticsFile> byId = new HashMap<>();
    table.statisticsFiles().forEach(f -> byId.put(f.snapshotId(), f));
    Snapshot s = table.snapshot(snapshotId);
    for (int i = 0; s != null && i < HISTORY; i++) {
      StatisticsFile f = byId.get(s.snapshotId());
      if (f != null && f.blobMetadata().stream().anyMatch(b -> b.type().equals(BLOB_TYPE))) {
        try {
          return read(table, f, s.snapshotId(), layout);
        } catch (RuntimeException e) {
          return null; // unreadable, corrupt or not for this table shape: rebuild
        }
      }
      s = s.parentId() == null ? null : table.snapshot(s.parentId());
    }
    return null;
  }

  private static PrimaryKeyIndex read(Table table, StatisticsFile file, long snapshotId, TableLayout layout) {
    InputFile in = table.io().newInputFile(file.path());
    try (PuffinReader reader = Puffin.read(in).withFileSize(file.fileSizeInBytes()).build()) {
      List<BlobMetadata> blobs = reader.fileMetadata().blobs().stream().filter(b -> b.type().equals(BLOB_TYPE)).toList();
      for (Pair<BlobMetadata, ByteBuffer> blob : reader.readAll(blobs)) {
        ByteBuffer buf = blob.second();
        byte[] bytes = new byte[buf.remaining()];
        buf.get(bytes);
        return decode(table, bytes, snapshotId, layout);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new IllegalStateException("no index blob in " + file.path());
  }

  static byte[] encode(PrimaryKeyIndex index, TableLayout layout) {
    return encode(index, layout, false);
  }

  /**
   * @param general every key and value as objects through Iceberg's single-value encoding: the
   *     reference that the fast path (a long, int or uuid key written from its longs, merge-state
   *     columns from their arrays) is compared to byte for byte in a test. The fast path matters
   *     because the applying thread persists the index every {@code PERSIST_EVERY} commits: 10M
   *     uuid keys with the contest's merge state took 4.4 s to encode on the general path.
   */
  static byte[] encode(PrimaryKeyIndex index, TableLayout layout, boolean general) {
    Type[] types = keyTypes(layout);
    Map<String, Integer> fileIds = new HashMap<>();
    List<String> files = new ArrayList<>();
    int[] count = {0};
    java.util.function.Consumer<DataFile> fileOf = f -> {
      count[0]++;
      if (!fileIds.containsKey(f.location())) {
        fileIds.put(f.location(), files.size());
        files.add(f.location());
      }
    };
    boolean raw = !general && types.length == 1 && rawKeyWidth(types[0]) > 0
        && index.forEachRaw((k0, k1, file, position) -> fileOf.accept(file));
    if (!raw) {
      index.forEach((k, l) -> fileOf.accept(l.file()));
    }
    // unsynchronized and sized for the keys at once (a ByteArrayOutputStream locks on every write and grows by copying)
    long perKey = 32L + 16L * index.mergeState().columns().length; // a key's entry and its held values, roughly
    ByteBufferOutputStream bytes = new ByteBufferOutputStream((int) Math.min(Integer.MAX_VALUE - 64, 1024L + count[0] * perKey));
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeLong(index.snapshotId());
      out.writeUTF(String.join(",", layout.keyNames()) + ":" + java.util.Arrays.toString(types));
      out.writeInt(files.size());
      for (String f : files) {
        out.writeUTF(f);
      }
      out.writeInt(count[0]);
      if (raw) {
        writeRawEntries(out, index, rawKeyWidth(types[0]), fileIds);
      } else {
        writeEntries(out, index, types, fileIds);
      }
      index.mergeState().write(out, general);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ByteBuffer written = bytes.buffer();
    written.flip();
    CRC32 crc = new CRC32();
    crc.update(written.duplicate());
    byte[] payload = java.util.Arrays.copyOf(written.array(), written.limit() + 8);
    ByteBuffer.wrap(payload).putLong(written.limit(), crc.getValue());
    return payload;
  }

  /** Each entry from the key's longs: as Iceberg's single values, numbers little-endian, a uuid's halves big-endian. */
  private static void writeRawEntries(DataOutputStream out, PrimaryKeyIndex index, int width, Map<String, Integer> fileIds) {
    index.forEachRaw((k0, k1, file, position) -> {
      try {
        out.writeInt(width);
        switch (width) {
          case Long.BYTES -> out.writeLong(Long.reverseBytes(k0));
          case Integer.BYTES -> out.writeInt(Integer.reverseBytes((int) k0));
          default -> {
            out.writeLong(k0);
            out.writeLong(k1);
          }
        }
        out.writeInt(fileIds.get(file.location()));
        out.writeLong(position);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  /** Each entry from its key's values, through Iceberg's single-value encoding. */
  private static void writeEntries(DataOutputStream out, PrimaryKeyIndex index, Type[] types, Map<String, Integer> fileIds) {
    index.forEach((key, location) -> {
      try {
        for (int i = 0; i < types.length; i++) {
          ByteBuffer v = Conversions.toByteBuffer(types[i], key.get(i));
          out.writeInt(v.remaining());
          out.write(v.array(), v.arrayOffset() + v.position(), v.remaining());
        }
        out.writeInt(fileIds.get(location.file().location()));
        out.writeLong(location.position());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  /** Bytes of a key type's single value when a store holds it as longs (long, int, uuid), else 0. */
  private static int rawKeyWidth(Type type) {
    return switch (type.typeId()) {
      case LONG -> Long.BYTES;
      case INTEGER -> Integer.BYTES;
      case UUID -> 2 * Long.BYTES;
      default -> 0;
    };
  }

  static PrimaryKeyIndex decode(Table table, byte[] payload, long snapshotId, TableLayout layout) {
    CRC32 crc = new CRC32();
    crc.update(payload, 0, payload.length - 8);
    if (crc.getValue() != ByteBuffer.wrap(payload, payload.length - 8, 8).getLong()) {
      throw new IllegalStateException("index checksum mismatch");
    }
    Type[] types = keyTypes(layout);
    Map<String, DataFile> live = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshotId).planFiles()) {
      tasks.forEach(t -> live.put(t.file().location(), t.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload, 0, payload.length - 8))) {
      if (in.readLong() != snapshotId) {
        throw new IllegalStateException("index taken at another snapshot");
      }
      if (!in.readUTF().equals(String.join(",", layout.keyNames()) + ":" + java.util.Arrays.toString(types))) {
        throw new IllegalStateException("index of other key columns");
      }
      DataFile[] files = new DataFile[in.readInt()];
      for (int i = 0; i < files.length; i++) {
        files[i] = live.get(in.readUTF());
        if (files[i] == null) {
          throw new IllegalStateException("index names a file that is not live");
        }
      }
      int n = in.readInt();
      PrimaryKeyIndex index = PrimaryKeyIndex.empty(layout, snapshotId);
      if (types.length == 1 && rawKeyWidth(types[0]) > 0) {
        // A long, int or uuid key, the common shapes, read without a value object per key: a worker
        // woken from zero loads this before its first batch (the whole load of 889k keys: 1.5 s → 1.1-1.3 s).
        int start = payload.length - 8 - in.available();
        int read = readRawEntries(ByteBuffer.wrap(payload, start, payload.length - 8 - start), n, types[0], files, index.locations());
        in.skipBytes(read);
      } else {
        for (int e = 0; e < n; e++) {
          Object[] key = new Object[types.length];
          for (int i = 0; i < types.length; i++) {
            byte[] v = new byte[in.readInt()];
            in.readFully(v);
            Object value = Conversions.fromByteBuffer(types[i], ByteBuffer.wrap(v));
            key[i] = value instanceof CharSequence cs ? cs.toString() : value;
          }
          index.put(new RowKey(key), files[in.readInt()], in.readLong());
        }
      }
      index.mergeState().read(in, live::containsKey);
      if (in.available() != 0) {
        throw new IllegalStateException("trailing bytes after the index");
      }
      return index;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Reads {@code n} entries of a single long, int or uuid key as {@link #writeRawEntries} wrote them
   * (length, Iceberg's single value: numbers little-endian, a uuid's halves big-endian as the buffer
   * reads; file id, position) into the store, as its longs.
   *
   * @return the bytes read
   */
  private static int readRawEntries(ByteBuffer in, int n, Type type, DataFile[] files, KeyLocations into) {
    int width = rawKeyWidth(type);
    int start = in.position();
    into.ensureCapacity(n);
    for (int e = 0; e < n; e++) {
      if (in.getInt() != width) {
        throw new IllegalStateException("a key of another width than " + type);
      }
      long k0;
      long k1 = 0;
      switch (width) {
        case Long.BYTES -> k0 = Long.reverseBytes(in.getLong());
        case Integer.BYTES -> k0 = Integer.reverseBytes(in.getInt());
        default -> {
          k0 = in.getLong();
          k1 = in.getLong();
        }
      }
      into.putRaw(k0, k1, files[in.getInt()], in.getLong());
    }
    return in.position() - start;
  }

  /** Key types whose values persist exactly through Iceberg's single-value encoding; others are not persisted. */
  public static boolean supports(TableLayout layout) {
    for (Type t : keyTypes(layout)) {
      switch (t.typeId()) {
        case INTEGER, LONG, STRING, UUID, DECIMAL, BOOLEAN -> { }
        default -> {
          return false;
        }
      }
    }
    return true;
  }

  private static Type[] keyTypes(TableLayout layout) {
    String[] names = layout.keyNames();
    Type[] types = new Type[names.length];
    for (int i = 0; i < names.length; i++) {
      types[i] = layout.schema().findType(names[i]);
    }
    return types;
  }

  private static List<Integer> keyFieldIds(TableLayout layout) {
    List<Integer> ids = new ArrayList<>();
    for (String n : layout.keyNames()) {
      ids.add(layout.schema().findField(n).fieldId());
    }
    return ids;
  }
}
