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
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.zip.CRC32;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.GenericBlobMetadata;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.IOUtil;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
  /** Blob properties in the table's metadata: where the blob's bytes are in the Puffin file, when stored as written. */
  static final String OFFSET_PROPERTY = "floe.blob-offset";
  static final String LENGTH_PROPERTY = "floe.blob-length";
  private static final Logger LOG = LoggerFactory.getLogger(PersistedIndex.class);

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
            writer.writtenBlobsMetadata().stream().map(PersistedIndex::withPlace).toList());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /**
   * A written blob's metadata for the table, naming where in its file the blob's bytes are when
   * they are stored as written: a worker then reads that range alone, without the file's footer
   * (the footer and Puffin's blob read took 0.2 s of a cold start at 889k keys; the range, 0.07 s).
   */
  private static org.apache.iceberg.BlobMetadata withPlace(BlobMetadata written) {
    Map<String, String> properties = new HashMap<>(written.properties());
    if (written.compressionCodec() == null) {
      properties.put(OFFSET_PROPERTY, Long.toString(written.offset()));
      properties.put(LENGTH_PROPERTY, Long.toString(written.length()));
    }
    return new GenericBlobMetadata(written.type(), written.snapshotId(), written.sequenceNumber(), written.inputFields(), properties);
  }

  /** Attaches a written index to its snapshot (a metadata commit, no new snapshot). */
  public static void attach(Table table, StatisticsFile written) {
    table.updateStatistics().setStatistics(written).commit();
  }

  /**
   * The newest persisted index on an ancestor of {@code snapshotId} (or on it), if any can be trusted.
   * The snapshot's live data files, which the index names, are read from its manifests beside the
   * blob and its keys: both are a worker's cold start, on its critical path at a million keys.
   */
  public static PrimaryKeyIndex loadNewest(Table table, long snapshotId, TableLayout layout) {
    Map<Long, StatisticsFile> byId = new HashMap<>();
    table.statisticsFiles().forEach(f -> byId.put(f.snapshotId(), f));
    Snapshot s = table.snapshot(snapshotId);
    for (int i = 0; s != null && i < HISTORY; i++) {
      StatisticsFile f = byId.get(s.snapshotId());
      if (f != null && f.blobMetadata().stream().anyMatch(b -> b.type().equals(BLOB_TYPE))) {
        CompletableFuture<Map<String, DataFile>> live = LiveDataFiles.beside(table, s.snapshotId());
        try {
          long t0 = System.nanoTime();
          byte[] payload = read(table, f);
          return decode(payload, s.snapshotId(), layout, live::join, t0);
        } catch (RuntimeException e) {
          return null; // unreadable, corrupt or not for this table shape: rebuild
        } finally {
          live.handle((files, failure) -> null).join(); // nothing left reading the table once this returns
        }
      }
      s = s.parentId() == null ? null : table.snapshot(s.parentId());
    }
    return null;
  }

  /** The index blob's bytes: the range the table's metadata names, else (an older copy) through the Puffin file's footer. */
  private static byte[] read(Table table, StatisticsFile file) {
    InputFile in = table.io().newInputFile(file.path(), file.fileSizeInBytes());
    org.apache.iceberg.BlobMetadata described = file.blobMetadata().stream().filter(b -> b.type().equals(BLOB_TYPE)).findFirst().orElseThrow();
    String offset = described.properties().get(OFFSET_PROPERTY);
    String length = described.properties().get(LENGTH_PROPERTY);
    try {
      if (offset != null && length != null) {
        byte[] bytes = new byte[Math.toIntExact(Long.parseLong(length))];
        try (SeekableInputStream stream = in.newStream()) {
          stream.seek(Long.parseLong(offset));
          IOUtil.readFully(stream, bytes, 0, bytes.length);
        }
        return bytes;
      }
      try (PuffinReader reader = Puffin.read(in).withFileSize(file.fileSizeInBytes()).build()) {
        List<BlobMetadata> blobs = reader.fileMetadata().blobs().stream().filter(b -> b.type().equals(BLOB_TYPE)).toList();
        for (Pair<BlobMetadata, ByteBuffer> blob : reader.readAll(blobs)) {
          ByteBuffer buf = blob.second();
          byte[] bytes = new byte[buf.remaining()];
          buf.get(bytes);
          return bytes;
        }
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

  /**
   * The index a payload holds, checked against the layout and the snapshot's live data files.
   *
   * @param live the snapshot's live data files by location, asked for only once the keys are in
   *     (when the key is a long, int or uuid; before the keys otherwise)
   * @param started when reading the blob began, for the log line
   */
  static PrimaryKeyIndex decode(byte[] payload, long snapshotId, TableLayout layout, Supplier<Map<String, DataFile>> live, long started) {
    long read = System.nanoTime();
    CRC32 crc = new CRC32();
    crc.update(payload, 0, payload.length - 8);
    if (crc.getValue() != ByteBuffer.wrap(payload, payload.length - 8, 8).getLong()) {
      throw new IllegalStateException("index checksum mismatch");
    }
    Type[] types = keyTypes(layout);
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload, 0, payload.length - 8))) {
      if (in.readLong() != snapshotId) {
        throw new IllegalStateException("index taken at another snapshot");
      }
      if (!in.readUTF().equals(String.join(",", layout.keyNames()) + ":" + java.util.Arrays.toString(types))) {
        throw new IllegalStateException("index of other key columns");
      }
      List<String> fileNames = new ArrayList<>();
      for (int i = in.readInt(); i > 0; i--) {
        fileNames.add(in.readUTF());
      }
      int n = in.readInt();
      PrimaryKeyIndex index = PrimaryKeyIndex.empty(layout, snapshotId);
      Map<String, DataFile> liveFiles;
      long keysIn;
      if (types.length == 1 && rawKeyWidth(types[0]) > 0) {
        // A long, int or uuid key, the common shapes, read without a value object per key and
        // against file ids, while the live files are still being read: a worker woken from zero
        // loads this before its first batch (889k keys alone on the machine: 0.83-0.94 s with the
        // files planned first, 0.52-0.57 s beside them; 2.0 s → 0.8 s in a starting worker).
        index.locations().expectFiles(fileNames);
        int start = payload.length - 8 - in.available();
        int bytes = readRawEntries(ByteBuffer.wrap(payload, start, payload.length - 8 - start), n, types[0], fileNames.size(), index.locations());
        in.skipBytes(bytes);
        keysIn = System.nanoTime();
        liveFiles = live.get();
        index.locations().bindFiles(liveFiles::get);
      } else {
        liveFiles = live.get();
        DataFile[] files = new DataFile[fileNames.size()];
        for (int i = 0; i < files.length; i++) {
          files[i] = liveFiles.get(fileNames.get(i));
          if (files[i] == null) {
            throw new IllegalStateException("the index names a file that is not live: " + fileNames.get(i));
          }
        }
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
        keysIn = System.nanoTime();
      }
      long filesIn = System.nanoTime();
      index.mergeState().read(in, liveFiles::containsKey);
      if (in.available() != 0) {
        throw new IllegalStateException("trailing bytes after the index");
      }
      LOG.info("read a persisted index of {} keys in {} files ({} KiB): blob {} ms, keys {} ms, then waited {} ms for the live files, merge state {} ms",
          n, fileNames.size(), payload.length >> 10, (read - started) / 1_000_000, (keysIn - read) / 1_000_000,
          (filesIn - keysIn) / 1_000_000, (System.nanoTime() - filesIn) / 1_000_000);
      return index;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Reads {@code n} entries of a single long, int or uuid key as {@link #writeRawEntries} wrote them
   * (length, Iceberg's single value: numbers little-endian, a uuid's halves big-endian as the buffer
   * reads; file id, position) into the store, as its longs, each at its file's id.
   *
   * @return the bytes read
   */
  private static int readRawEntries(ByteBuffer in, int n, Type type, int files, KeyLocations into) {
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
      int file = in.getInt();
      if (file < 0 || file >= files) {
        throw new IllegalStateException("an entry names file " + file + " of " + files);
      }
      into.putRawAt(k0, k1, file, in.getLong());
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
