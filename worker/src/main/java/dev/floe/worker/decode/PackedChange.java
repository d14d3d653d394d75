package dev.floe.worker.decode;

import dev.floe.worker.fold.Unchanged;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A decoded upsert or delete held without an object per value: its numbers (integers, doubles,
 * decimals of up to 18 digits, timestamps) unboxed in a {@code long[]}, the UTF-8 bytes of its
 * strings in a shared {@link Text} array (a string the decoder found repeated, or a long one, stays
 * the shared or large object it is), its other values (dates, booleans, ...) in an {@code Object[]},
 * its key of one integer column as a {@code long} (a uuid key as its two halves: the high one in that
 * {@code long}, the low one in the chunk's numbers). A batch holds every event it decoded until it commits, and
 * the collector copies each object held once more at the young collection it survives: a {@link
 * ChangeEvent} of an {@code orders} record is six objects beside its record (~230 B), this is one
 * (~90 B with its share of a chunk). The arrays are a decoding thread's {@link Chunk}s, shared by
 * the events it packs one after another, so an event adds no array of its own. {@link #toEvent()}
 * gives the event back as the decoder made it (the general path, which the packed one is compared to).
 */
public final class PackedChange implements Decoded {
  private final RawRecord record;
  private final Slots slots;
  private final EventSchema schema;
  /** The key's one integer column's value, or the high half of its uuid. */
  private final long key;
  private final long lsnOrNone;
  /**
   * The chunk holding its values from {@link #base}; null for a delete of an integer key. A delete
   * of a uuid key holds the key's low half there, at {@code numbers[base]}, and no values.
   */
  private final Chunk chunk;
  /** Where its values start in the chunk: numbers at {@code numbers[base + slot]}, objects at {@code objects[base + slot]}. */
  private final int base;
  /**
   * Bit i set: the value at position i is null (positions of numbers only); every bit set: a
   * delete (whose key is never null, so no upsert has them all set).
   */
  private final long nulls;

  /** {@link #nulls} of a delete: it carries no values. */
  private static final long DELETE = -1L;

  private PackedChange(RawRecord record, Slots slots, EventSchema schema, long key, long lsnOrNone, Chunk chunk, int base,
      long nulls) {
    this.record = record;
    this.slots = slots;
    this.schema = schema;
    this.key = key;
    this.lsnOrNone = lsnOrNone;
    this.chunk = chunk;
    this.base = base;
    this.nulls = nulls;
  }

  public RawRecord record() {
    return record;
  }

  /** The plan it was packed by: an applier takes the packed form only from the plan of its current table layout. */
  public Slots slots() {
    return slots;
  }

  public EventSchema schema() {
    return schema;
  }

  public boolean isDelete() {
    return nulls == DELETE;
  }

  /** The key's one column's value, widened to a long; for a uuid key, its high half ({@link #keyLow()} the other). */
  public long key() {
    return key;
  }

  /** The low half of a uuid key; 0 for an integer key. */
  public long keyLow() {
    if (!slots.uuidKey) {
      return 0;
    }
    return chunk.numbers[base + (isDelete() ? 0 : slots.keyLowSlot)];
  }

  /** The source LSN, or {@link ChangeEvent#NO_LSN}. */
  public long lsnOrNone() {
    return lsnOrNone;
  }

  /** The event's values in its schema's order, made again (a new array per call); null for a delete. */
  public Object[] values() {
    if (isDelete()) {
      return null;
    }
    Object[] out = new Object[slots.kinds.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = value(i);
    }
    return out;
  }

  /** The value at a position of the event's schema, made again (numbers boxed per call). */
  public Object value(int position) {
    int slot = slots.slot[position];
    byte kind = slots.kinds[position];
    if (kind == Slots.OBJECT) {
      return chunk.objects[base + slot];
    }
    if ((nulls & (1L << position)) != 0) {
      return null;
    }
    if (kind == Slots.STRING) {
      Object o = chunk.objects[base + slot];
      if (o instanceof byte[] text) {
        long at = textAt(position);
        return new String(text, Text.offset(at), Text.length(at), StandardCharsets.UTF_8);
      }
      return o;
    }
    long n = chunk.numbers[base + slot];
    return switch (kind) {
      case Slots.LONG -> n;
      case Slots.INT -> (int) n;
      case Slots.DOUBLE -> Double.longBitsToDouble(n);
      case Slots.DECIMAL -> BigDecimal.valueOf(n, slots.scale[position]);
      case Slots.TIMESTAMP -> SharedDates.timestampFromMicros(n);
      default -> throw new IllegalStateException("kind " + kind);
    };
  }

  /** Whether the value at a position of an upsert is null, without making it. */
  public boolean isNullAt(int position) {
    byte kind = slots.kinds[position];
    if (kind == Slots.OBJECT) {
      return chunk.objects[base + slots.slot[position]] == null;
    }
    return (nulls & (1L << position)) != 0;
  }

  /** The long or int at a position of an upsert, widened, without boxing it; the caller has checked it is not null. */
  public long numberAt(int position) {
    byte kind = slots.kinds[position];
    if (kind != Slots.LONG && kind != Slots.INT) {
      throw new IllegalStateException("position " + position + " holds no long or int");
    }
    return chunk.numbers[base + slots.slot[position]];
  }

  /**
   * The value at a position as the table's writer takes it: {@link #value}, except that a string
   * held as bytes comes as a {@link Utf8Slice} of them, which the writer writes as they are: no copy,
   * no text decoded and encoded again.
   */
  public Object valueToWrite(int position) {
    if (slots.kinds[position] == Slots.STRING && (nulls & (1L << position)) == 0
        && chunk.objects[base + slots.slot[position]] instanceof byte[] text) {
      long at = textAt(position);
      return new Utf8Slice(text, Text.offset(at), Text.length(at));
    }
    return value(position);
  }

  /** Where the bytes of the string at a position are in its {@link Text} array. */
  private long textAt(int position) {
    return chunk.numbers[base + slots.textSlot[position]];
  }

  /** The key's value as the decoder gave it (a {@code Long}, an {@code Integer} or a {@code UUID}). */
  public Object keyValue() {
    if (slots.uuidKey) {
      return isDelete() ? new UUID(key, keyLow()) : chunk.objects[base + slots.slot[slots.keyPosition]];
    }
    return slots.intKey ? (Object) (int) key : (Object) key;
  }

  /** The change as the decoder made it. */
  public ChangeEvent toEvent() {
    return new ChangeEvent(isDelete() ? Op.DELETE : Op.UPSERT, slots.keyColumn, keyValue(), null, schema, values(), lsnOrNone,
        record, null, null);
  }

  /**
   * How the values of one table's events are packed: per position of the row (which is the event
   * schema's and the table's), whether it is a number (and which) or an object, and its slot.
   */
  public static final class Slots {
    static final byte OBJECT = 0;
    static final byte LONG = 1;
    static final byte INT = 2;
    static final byte DOUBLE = 3;
    static final byte DECIMAL = 4;
    static final byte TIMESTAMP = 5;
    /**
     * A string column: its object slot holds the {@link Text} array its UTF-8 bytes are in (where
     * in it is in its number slot, {@link #textSlot}), or the string itself when it is not held as
     * bytes.
     */
    static final byte STRING = 6;

    private final byte[] kinds;
    private final int[] scale;
    /** Per position: its number slot, or its object slot (objects and strings). */
    private final int[] slot;
    /** Per string position: the number slot that says where its bytes are in their {@link Text}. */
    private final int[] textSlot;
    /** Slots an event takes in a chunk: the wider of its number and object counts (both arrays share one base). */
    private final int chunkSlots;
    private final int keyPosition;
    private final String keyColumn;
    private final boolean intKey;
    private final boolean uuidKey;
    /** A uuid key's low half's number slot in an upsert (its high half is the event's key; the uuid itself is its object slot). */
    private final int keyLowSlot;

    private Slots(byte[] kinds, int[] scale, int keyPosition, String keyColumn, boolean intKey, boolean uuidKey) {
      this.kinds = kinds;
      this.scale = scale;
      this.slot = new int[kinds.length];
      this.textSlot = new int[kinds.length];
      int numbers = 0;
      int objects = 0;
      for (int i = 0; i < kinds.length; i++) {
        slot[i] = kinds[i] == OBJECT || kinds[i] == STRING ? objects++ : numbers++;
        if (kinds[i] == STRING) {
          textSlot[i] = numbers++;
        }
      }
      this.keyLowSlot = uuidKey ? numbers++ : -1;
      this.chunkSlots = Math.max(numbers, objects);
      this.keyPosition = keyPosition;
      this.keyColumn = keyColumn;
      this.intKey = intKey;
      this.uuidKey = uuidKey;
    }

    /** Builds the plan of a row's columns, from their Iceberg types; the key is one column of type long, int or uuid. */
    public static Slots of(List<Type> columns, int keyPosition, String keyColumn) {
      if (columns.size() > 64) {
        throw new IllegalArgumentException("at most 64 columns are packed");
      }
      byte[] kinds = new byte[columns.size()];
      int[] scale = new int[columns.size()];
      for (int i = 0; i < kinds.length; i++) {
        Type t = columns.get(i);
        kinds[i] = switch (t.typeId()) {
          case LONG -> LONG;
          case INTEGER -> INT;
          case DOUBLE -> DOUBLE;
          case DECIMAL -> ((Types.DecimalType) t).precision() <= 18 ? DECIMAL : OBJECT;
          case TIMESTAMP -> ((Types.TimestampType) t).shouldAdjustToUTC() ? OBJECT : TIMESTAMP;
          case STRING -> Slots.STRING;
          default -> OBJECT;
        };
        if (kinds[i] == DECIMAL) {
          scale[i] = ((Types.DecimalType) t).scale();
        }
      }
      byte keyKind = kinds[keyPosition];
      boolean uuid = columns.get(keyPosition).typeId() == Type.TypeID.UUID;
      if (keyKind != LONG && keyKind != INT && !uuid) {
        throw new IllegalArgumentException("the key column must be a long, an int or a uuid to be packed");
      }
      return new Slots(kinds, scale, keyPosition, keyColumn, keyKind == INT, uuid);
    }

    /** Whether the key is a uuid ({@link PackedChange#key()} its high half, {@link PackedChange#keyLow()} its low one). */
    public boolean uuidKey() {
      return uuidKey;
    }

    /** The number of values of a row. */
    public int width() {
      return kinds.length;
    }

    /**
     * The event packed, or null when it is not of the packed shape: an upsert or delete of one
     * key column (this plan's, holding a {@code Long}, {@code Integer} or {@code UUID} as the
     * column's type does), no key change, every value of its column's Java type as it is (so the table takes it
     * unconverted), no TOAST placeholder, each decimal of the column's scale, each timestamp whole
     * microseconds. The caller has checked that the event's schema is the table's columns in order.
     */
    public PackedChange pack(ChangeEvent e) {
      if ((e.op() != Op.UPSERT && e.op() != Op.DELETE) || e.previousKey() != null || e.nextKey() != null
          || e.keyColumn() == null || !e.keyColumn().equals(keyColumn)) {
        return null;
      }
      Object k = e.keyValue();
      if (!(uuidKey ? k instanceof UUID : intKey ? k instanceof Integer : k instanceof Long)) {
        return null;
      }
      long key = uuidKey ? ((UUID) k).getMostSignificantBits() : ((Number) k).longValue();
      if (e.op() == Op.DELETE) {
        if (!uuidKey) {
          return new PackedChange(e.record(), this, e.schema(), key, e.lsnOrNone(), null, 0, DELETE);
        }
        Chunk chunk = Chunk.withRoomFor(1);
        int base = chunk.used;
        chunk.numbers[base] = ((UUID) k).getLeastSignificantBits();
        chunk.used = base + 1;
        return new PackedChange(e.record(), this, e.schema(), key, e.lsnOrNone(), chunk, base, DELETE);
      }
      Object[] values = e.values();
      if (values == null || values.length != kinds.length || !k.equals(values[keyPosition])) {
        return null;
      }
      Chunk chunk = Chunk.withRoomFor(chunkSlots);
      int base = chunk.used;
      long[] numbers = chunk.numbers;
      Object[] objects = chunk.objects;
      long nulls = 0;
      for (int i = 0; i < kinds.length; i++) {
        Object v = values[i];
        if (v == Unchanged.VALUE) {
          return null;
        }
        int s = base + slot[i];
        if (kinds[i] == OBJECT) {
          objects[s] = v;
          continue;
        }
        if (v == null) {
          nulls |= 1L << i;
          continue;
        }
        if (kinds[i] == STRING) {
          if (v instanceof byte[]) {
            return null; // not a string column's value; and the slot tells bytes held by their array
          }
          objects[s] = v instanceof String text && !SharedStrings.repeated(text) ? Text.hold(text, numbers, base + textSlot[i]) : v;
          continue;
        }
        switch (kinds[i]) {
          case LONG -> {
            if (!(v instanceof Long l)) {
              return null;
            }
            numbers[s] = l;
          }
          case INT -> {
            if (!(v instanceof Integer n)) {
              return null;
            }
            numbers[s] = n;
          }
          case DOUBLE -> {
            if (!(v instanceof Double d)) {
              return null;
            }
            numbers[s] = Double.doubleToRawLongBits(d);
          }
          case DECIMAL -> {
            if (!(v instanceof BigDecimal d) || d.scale() != scale[i] || d.precision() > 18) {
              return null;
            }
            numbers[s] = d.unscaledValue().longValueExact();
          }
          case TIMESTAMP -> {
            if (!(v instanceof LocalDateTime t) || t.getNano() % 1_000 != 0) {
              return null;
            }
            Long micros = micros(t);
            if (micros == null) {
              return null;
            }
            numbers[s] = micros;
          }
          default -> throw new IllegalStateException("kind " + kinds[i]);
        }
      }
      if (uuidKey) {
        numbers[base + keyLowSlot] = ((UUID) k).getLeastSignificantBits();
      }
      chunk.used = base + chunkSlots; // only now: a refused event leaves its slots to the next
      return new PackedChange(e.record(), this, e.schema(), key, e.lsnOrNone(), chunk, base, nulls);
    }

    private static Long micros(LocalDateTime t) {
      try {
        long seconds = t.toEpochSecond(ZoneOffset.UTC);
        return Math.addExact(Math.multiplyExact(seconds, 1_000_000L), t.getNano() / 1_000);
      } catch (ArithmeticException e) {
        return null;
      }
    }

    @Override
    public String toString() {
      return "Slots" + java.util.Arrays.toString(kinds) + " key@" + keyPosition;
    }
  }

  /**
   * The UTF-8 bytes of strings a thread packs, one string after another in one array: a string of
   * its own is two objects (the {@code String} and its array) that the collector copies at the young
   * collection a held event survives, where the bytes in a shared array are part of one large copy.
   * Like a {@link Chunk}, written only by the thread that packs into it and read once its events are
   * handed over; it rolls over on its own (events hold the array they took), so text-heavy rows do
   * not leave a chunk's slots unused.
   */
  static final class Text {
    /** Bytes per array: ~4,000 {@code orders} customer names. */
    static final int BYTES = 64 * 1024;
    /** Longer strings stay strings: their two objects are little beside their bytes. */
    static final int MAX_BYTES = 1024;
    private static final ThreadLocal<Text> CURRENT = new ThreadLocal<>();

    final byte[] bytes = new byte[BYTES];
    /** Bytes taken; the packing thread's alone. */
    int used;

    /**
     * Where {@code s} is held: its bytes copied into the calling thread's array, their place written
     * to {@code numbers[at]}, and that array returned; or {@code s} itself when it is too long, or
     * not text UTF-8 holds as it is (a lone surrogate).
     */
    static Object hold(String s, long[] numbers, int at) {
      byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
      if (utf8.length > MAX_BYTES || (mayHaveReplaced(utf8, s) && UnicodeText.loneSurrogateAt(s) >= 0)) {
        return s;
      }
      Text t = CURRENT.get();
      if (t == null || t.used + utf8.length > BYTES) {
        t = new Text();
        CURRENT.set(t);
      }
      System.arraycopy(utf8, 0, t.bytes, t.used, utf8.length);
      numbers[at] = (long) t.used << 32 | utf8.length;
      t.used += utf8.length;
      return t.bytes;
    }

    static int offset(long at) {
      return (int) (at >>> 32);
    }

    static int length(long at) {
      return (int) at;
    }

    /**
     * Whether the encoder may have put a '?' for a lone surrogate: as many bytes as chars and no
     * '?' among them is ASCII text, encoded as it is.
     */
    private static boolean mayHaveReplaced(byte[] utf8, String s) {
      if (utf8.length != s.length()) {
        return true;
      }
      for (byte b : utf8) {
        if (b == '?') {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * The arrays a thread's packed events hold their values in, filled one event after another: per
   * event a {@code long[]} and an {@code Object[]} of its own were two of the four objects a held
   * event cost the collector. Events take a chunk's slots from the same base in both arrays (the
   * wider of their two counts), so an event is a chunk and one index. A chunk is written only by the
   * thread that packs into it (each thread has its own) and read once its events are handed over,
   * which orders the writes before the reads. It lives while any of its events does: at most one
   * chunk per thread outlives the batch it began in.
   */
  static final class Chunk {
    /** Slots per chunk: ~2,700 {@code orders} events in 64 KiB of numbers and 32 KiB of references. */
    static final int SLOTS = 8_192;
    private static final ThreadLocal<Chunk> CURRENT = new ThreadLocal<>();

    final long[] numbers;
    final Object[] objects;
    /** Slots taken; the packing thread's alone. */
    int used;

    private Chunk(int slots) {
      this.numbers = new long[slots];
      this.objects = new Object[slots];
    }

    /** The calling thread's chunk, a new one when it has fewer than {@code slots} free. */
    static Chunk withRoomFor(int slots) {
      Chunk c = CURRENT.get();
      if (c == null || c.used + slots > c.numbers.length) {
        c = new Chunk(Math.max(SLOTS, slots));
        CURRENT.set(c);
      }
      return c;
    }
  }

  @Override
  public String toString() {
    return (isDelete() ? "delete " : "upsert ") + key + " @" + record;
  }
}
