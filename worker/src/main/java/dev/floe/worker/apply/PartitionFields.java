package dev.floe.worker.apply;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.PartitionSpec;

/** Parses partition fields written as in SQL: {@code region}, {@code day(ts)}, {@code bucket(16, id)}. */
public final class PartitionFields {
  private static final Pattern IDENTITY = Pattern.compile("\\s*([A-Za-z_]\\w*)\\s*");
  private static final Pattern TIME = Pattern.compile("\\s*(year|month|day|hour)\\s*\\(\\s*([A-Za-z_]\\w*)\\s*\\)\\s*");
  private static final Pattern WIDTH = Pattern.compile("\\s*(bucket|truncate)\\s*\\(\\s*(\\d+)\\s*,\\s*([A-Za-z_]\\w*)\\s*\\)\\s*");

  private PartitionFields() {}

  /** A parsed partition field. */
  public record Field(String transform, String column, int width) {}

  public static Field parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("is empty");
    }
    Matcher m = IDENTITY.matcher(text);
    if (m.matches()) {
      return new Field("identity", m.group(1), 0);
    }
    m = TIME.matcher(text);
    if (m.matches()) {
      return new Field(m.group(1), m.group(2), 0);
    }
    m = WIDTH.matcher(text);
    if (m.matches()) {
      return new Field(m.group(1), m.group(3), Integer.parseInt(m.group(2)));
    }
    throw new IllegalArgumentException("'" + text + "' is not a partition field: use column, year(c), month(c), day(c), hour(c), bucket(N, c) or truncate(W, c)");
  }

  public static void addTo(PartitionSpec.Builder builder, Field f) {
    switch (f.transform()) {
      case "identity" -> builder.identity(f.column());
      case "year" -> builder.year(f.column());
      case "month" -> builder.month(f.column());
      case "day" -> builder.day(f.column());
      case "hour" -> builder.hour(f.column());
      case "bucket" -> builder.bucket(f.column(), f.width());
      case "truncate" -> builder.truncate(f.column(), f.width());
      default -> throw new IllegalArgumentException("unknown transform " + f.transform());
    }
  }
}
