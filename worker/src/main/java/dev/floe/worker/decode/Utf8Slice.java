package dev.floe.worker.decode;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A string as its UTF-8 bytes at a place in a shared array, without a copy: what a packed row
 * hands the table's writer, which writes those bytes as they are ({@code PackedRowWriter}), and the
 * merge state, which copies them into its arena. Anything else sees a {@link CharSequence} whose
 * text is decoded on first use. The array is never written again once the slice is made (a packing
 * thread's {@code Text} arrays only grow), so the slice may be held as long as needed.
 */
public final class Utf8Slice implements CharSequence {
  private final byte[] bytes;
  private final int offset;
  private final int length;
  /** The text, decoded on first use: the writer and the merge state never ask for it. */
  private String text;

  public Utf8Slice(byte[] bytes, int offset, int length) {
    this.bytes = bytes;
    this.offset = offset;
    this.length = length;
  }

  /** The array its bytes are in (shared: read, never written). */
  public byte[] bytes() {
    return bytes;
  }

  public int offset() {
    return offset;
  }

  public int byteLength() {
    return length;
  }

  @Override
  public String toString() {
    String s = text;
    if (s == null) {
      s = new String(bytes, offset, length, StandardCharsets.UTF_8);
      text = s;
    }
    return s;
  }

  @Override
  public int length() {
    return toString().length();
  }

  @Override
  public char charAt(int index) {
    return toString().charAt(index);
  }

  @Override
  public CharSequence subSequence(int start, int end) {
    return toString().subSequence(start, end);
  }

  /** Equal to another slice of the same bytes, as Avro's {@code Utf8} is to another {@code Utf8}. */
  @Override
  public boolean equals(Object o) {
    return o instanceof Utf8Slice other
        && Arrays.equals(bytes, offset, offset + length, other.bytes, other.offset, other.offset + other.length);
  }

  /** The hash of the text, as {@link String#hashCode()} gives it: a slice and its string fall into the same bucket. */
  @Override
  public int hashCode() {
    return toString().hashCode();
  }
}
