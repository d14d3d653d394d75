package dev.floe.worker.decode;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;

/**
 * The value readers for Debezium's JSON encodings. Numbers are never read through a double unless
 * the column is a floating-point one; decimals stay exact.
 */
public final class ValueCodecs {
  private ValueCodecs() {}

  public static final ValueCodec INT = n -> {
    requireIntegral(n, "int");
    if (!n.canConvertToInt()) {
      throw new IllegalArgumentException(Reasons.shown(n) + " does not fit an int");
    }
    return n.intValue();
  };

  public static final ValueCodec LONG = n -> {
    requireIntegral(n, "long");
    if (!n.canConvertToLong()) {
      throw new IllegalArgumentException(Reasons.shown(n) + " does not fit a long");
    }
    return n.longValue();
  };

  public static final ValueCodec FLOAT = n -> {
    double d = floating(n);
    float f = (float) d;
    if ((Float.isInfinite(f) && !Double.isInfinite(d)) || (f == 0 && d != 0)) {
      throw new IllegalArgumentException(Reasons.shown(n) + " is out of range for a float");
    }
    return f;
  };
  public static final ValueCodec DOUBLE = ValueCodecs::floating;

  public static final ValueCodec BOOLEAN = n -> {
    if (!n.isBoolean()) {
      throw new IllegalArgumentException(Reasons.shown(n) + " is not a boolean");
    }
    return n.booleanValue();
  };

  /**
   * Text, or the JSON text of a structured value (so nothing is lost); refused when it is not
   * valid Unicode (a lone surrogate), since it could not be stored as it came.
   */
  public static final ValueCodec STRING = n -> SharedStrings.shared(UnicodeText.requireValid(n.isTextual() ? n.textValue() : n.toString()));

  public static final ValueCodec BINARY = n -> ByteBuffer.wrap(base64(n));

  public static final ValueCodec UUID_TEXT = n -> UUID.fromString(text(n));

  /** Days since the epoch (Debezium Date, Connect Date). */
  public static final ValueCodec EPOCH_DAYS = n -> SharedDates.ofEpochDay(LONG_OF(n));

  public static final ValueCodec TIME_MILLIS = n -> LocalTime.ofNanoOfDay(LONG_OF(n) * 1_000_000L);
  public static final ValueCodec TIME_MICROS = n -> LocalTime.ofNanoOfDay(LONG_OF(n) * 1_000L);
  public static final ValueCodec TIME_NANOS = n -> LocalTime.ofNanoOfDay(LONG_OF(n) / 1_000L * 1_000L);

  public static final ValueCodec TIMESTAMP_MILLIS = n -> SharedDates.timestampFromMicros(Math.multiplyExact(LONG_OF(n), 1000L));
  public static final ValueCodec TIMESTAMP_MICROS = n -> SharedDates.timestampFromMicros(LONG_OF(n));
  public static final ValueCodec TIMESTAMP_NANOS = n -> SharedDates.timestampFromMicros(Math.floorDiv(LONG_OF(n), 1000L));

  /** Debezium ZonedTimestamp: an ISO-8601 string; kept as the same instant in UTC. */
  public static final ValueCodec ZONED_TIMESTAMP = n -> OffsetDateTime.parse(text(n)).withOffsetSameInstant(ZoneOffset.UTC);

  /** Connect Decimal: base64 big-endian two's-complement unscaled value, any number of digits. */
  public static ValueCodec decimalBytes(int scale) {
    return n -> {
      if (n.isNumber()) {
        return scaled(n, n.decimalValue(), scale);
      }
      return unscaled(base64(n), scale);
    };
  }

  /**
   * A big-endian two's-complement unscaled value at {@code scale}. Up to 8 bytes it is held as a
   * {@code long} inside the BigDecimal (40 bytes), not as a BigInteger beside it (104 in all): every
   * decoded event keeps its values until its batch commits, so the difference is heap and collector time.
   */
  static BigDecimal unscaled(byte[] twosComplement, int scale) {
    if (twosComplement.length == 0 || twosComplement.length > Long.BYTES) {
      return new BigDecimal(new BigInteger(twosComplement), scale); // BigInteger words an empty value's refusal
    }
    long v = twosComplement[0]; // sign-extended
    for (int i = 1; i < twosComplement.length; i++) {
      v = (v << 8) | (twosComplement[i] & 0xff);
    }
    return BigDecimal.valueOf(v, scale);
  }

  /**
   * Connect Decimal into a {@code decimal(precision, scale)} column: a value with more digits than
   * the column declares is refused here, with its reason, instead of failing in the Parquet writer
   * later (where the batch could only be retried, forever).
   */
  public static ValueCodec decimalBytes(int precision, int scale) {
    return new DecimalBytes(precision, scale);
  }

  /**
   * Connect Decimal into a {@code decimal(precision, scale)} column ({@link #decimalBytes(int, int)}),
   * with a read of its commonest form straight from the parser's characters: base64 of at most
   * eight bytes (a money column's every value), which the general read took through a string, a
   * tree node, a second string's bytes and a byte array per value.
   */
  public static final class DecimalBytes implements ValueCodec {
    private static final int[] SEXTETS = new int[128];

    static {
      java.util.Arrays.fill(SEXTETS, -1);
      String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
      for (int i = 0; i < alphabet.length(); i++) {
        SEXTETS[alphabet.charAt(i)] = i;
      }
    }

    private final int precision;
    private final int scale;
    private final ValueCodec read;

    DecimalBytes(int precision, int scale) {
      this.precision = precision;
      this.scale = scale;
      this.read = decimalBytes(scale);
    }

    @Override
    public Object decode(JsonNode n) {
      return fitting(n, (BigDecimal) read.decode(n), precision, scale);
    }

    /**
     * The value of {@code text[offset, offset + length)} as {@link #decode} reads the same text,
     * when it is padded base64 of one to eight bytes that fits the column; else null, and {@link
     * #decode} reads it (and words a refusal): longer values, anything malformed, a placeholder.
     */
    public BigDecimal fromBase64(char[] text, int offset, int length) {
      if (length == 0 || length > 12 || length % 4 != 0) {
        return null;
      }
      int pads = text[offset + length - 1] != '=' ? 0 : text[offset + length - 2] == '=' ? 2 : 1;
      long pending = 0; // sextet bits not yet made into a byte
      int pendingBits = 0;
      long value = 0;
      int bytes = 0;
      for (int i = offset; i < offset + length - pads; i++) {
        char c = text[i];
        int sextet = c < 128 ? SEXTETS[c] : -1;
        if (sextet < 0) {
          return null;
        }
        pending = (pending << 6) | sextet;
        pendingBits += 6;
        if (pendingBits >= 8) {
          pendingBits -= 8;
          int b = (int) (pending >>> pendingBits) & 0xff;
          value = bytes == 0 ? (byte) b : (value << 8) | b; // the first byte carries the sign
          bytes++;
          pending &= (1L << pendingBits) - 1;
        }
      }
      if (bytes == 0 || bytes > Long.BYTES || pending != 0) {
        return null;
      }
      BigDecimal v = BigDecimal.valueOf(value, scale);
      return v.precision() > precision ? null : v;
    }
  }

  /** Decimal given as text or number (decimal.handling.mode=string, or schemaless input), into {@code decimal(precision, scale)}. */
  public static ValueCodec decimalLenient(int precision, int scale) {
    return n -> {
      if (n.isNumber()) {
        return fitting(n, scaled(n, n.decimalValue(), scale), precision, scale);
      }
      String t = text(n);
      BigDecimal value;
      try {
        value = scaled(n, new BigDecimal(t), scale);
      } catch (NumberFormatException e) {
        value = unscaled(base64(n), scale);
      }
      return fitting(n, value, precision, scale);
    };
  }

  /** The value at the column's scale, refused when that would round it. */
  private static BigDecimal scaled(JsonNode n, BigDecimal value, int scale) {
    try {
      return value.setScale(scale);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(Reasons.shown(n) + " has more than " + scale + " decimal places");
    }
  }

  private static BigDecimal fitting(JsonNode n, BigDecimal value, int precision, int scale) {
    if (value.precision() > precision) {
      throw new IllegalArgumentException(Reasons.abbreviated(value.toPlainString()) + " has " + value.precision()
          + " digits, more than decimal(" + precision + "," + scale + ") holds");
    }
    return value;
  }

  /** Debezium VariableScaleDecimal: {scale, value}; kept exact as its plain text. */
  public static final ValueCodec VARIABLE_SCALE_DECIMAL_TEXT = n -> {
    JsonNode value = n.get("value");
    JsonNode scale = n.get("scale");
    if (value == null || scale == null) {
      throw new IllegalArgumentException(Reasons.shown(n) + " is not a VariableScaleDecimal {scale, value}");
    }
    return new BigDecimal(new BigInteger(base64(value)), scale.intValue()).toPlainString();
  };

  public static ValueCodec list(ValueCodec element) {
    return n -> {
      if (!n.isArray()) {
        throw new IllegalArgumentException(Reasons.shown(n) + " is not an array");
      }
      List<Object> out = new ArrayList<>(n.size());
      for (JsonNode e : n) {
        out.add(e.isNull() ? null : element.decode(e));
      }
      return out;
    };
  }

  /**
   * The reader for a column known only by its Iceberg type (schemaless JSON), assuming Debezium's
   * default encodings and accepting ISO text for temporal values.
   */
  public static ValueCodec forIcebergType(Type type) {
    return switch (type.typeId()) {
      case INTEGER -> INT;
      case LONG -> LONG;
      case FLOAT -> FLOAT;
      case DOUBLE -> DOUBLE;
      case BOOLEAN -> BOOLEAN;
      // A {scale, value} object is Debezium's VariableScaleDecimal, kept as exact text.
      case STRING -> n -> n.isObject() && n.size() == 2 && n.has("scale") && n.has("value")
          ? VARIABLE_SCALE_DECIMAL_TEXT.decode(n) : STRING.decode(n);
      case BINARY, FIXED -> BINARY;
      case UUID -> UUID_TEXT;
      case DATE -> n -> n.isTextual() ? LocalDate.parse(n.textValue()) : EPOCH_DAYS.decode(n);
      case TIME -> n -> n.isTextual() ? LocalTime.parse(n.textValue()) : TIME_MICROS.decode(n);
      case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC()
          ? n -> n.isTextual() ? ZONED_TIMESTAMP.decode(n) : DateTimeUtil.timestamptzFromMicros(LONG_OF(n))
          : n -> n.isTextual() ? java.time.LocalDateTime.parse(n.textValue()) : TIMESTAMP_MICROS.decode(n);
      case DECIMAL -> decimalLenient(((Types.DecimalType) type).precision(), ((Types.DecimalType) type).scale());
      case LIST -> list(forIcebergType(((Types.ListType) type).elementType()));
      default -> throw new IllegalArgumentException("no JSON reader for Iceberg type " + type);
    };
  }

  private static long LONG_OF(JsonNode n) {
    return (Long) LONG.decode(n);
  }

  /**
   * A double, exactly as written or refused. Debezium writes NaN and the infinities as the strings
   * "NaN", "Infinity" and "-Infinity" (or, with non-numeric numbers allowed, as bare tokens, which
   * Jackson reads as doubles); a decimal literal such as {@code 1e400} that only rounds to an
   * infinity or to zero is out of range, not a value.
   */
  private static double floating(JsonNode n) {
    if (n.isNumber()) {
      double d = n.doubleValue();
      boolean literal = n.isDouble() || n.isFloat(); // NaN/Infinity tokens; decimals arrive as BigDecimal
      if (!literal && (Double.isInfinite(d) || (d == 0 && n.decimalValue().signum() != 0))) {
        throw new IllegalArgumentException(Reasons.shown(n) + " is out of range for a double");
      }
      return d;
    }
    if (n.isTextual()) {
      switch (n.textValue()) {
        case "NaN":
          return Double.NaN;
        case "Infinity":
          return Double.POSITIVE_INFINITY;
        case "-Infinity":
          return Double.NEGATIVE_INFINITY;
        default:
      }
    }
    throw new IllegalArgumentException(Reasons.shown(n) + " is not a number");
  }

  private static void requireIntegral(JsonNode n, String what) {
    if (!n.isIntegralNumber()) {
      throw new IllegalArgumentException(Reasons.shown(n) + " is not an " + what);
    }
  }

  private static String text(JsonNode n) {
    if (!n.isTextual()) {
      throw new IllegalArgumentException(Reasons.shown(n) + " is not a string");
    }
    return n.textValue();
  }

  private static byte[] base64(JsonNode n) {
    try {
      return Base64.getDecoder().decode(text(n));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(Reasons.shown(n) + " is not base64: " + e.getMessage());
    }
  }
}
