package dev.floe.worker.decode;

import java.util.List;

/** The columns of a change event's row image, in the order the source declares them. */
public final class EventSchema {
  private final List<EventField> fields;
  private final String[] names;
  private final FieldOrder order;

  public EventSchema(List<EventField> fields) {
    this.fields = List.copyOf(fields);
    this.names = new String[fields.size()];
    for (int i = 0; i < fields.size(); i++) {
      names[i] = fields.get(i).name();
    }
    this.order = new FieldOrder(List.of(names));
  }

  /** The columns' names in the order a row image lists them, for reading one by the bytes of its names. */
  FieldOrder order() {
    return order;
  }

  public List<EventField> fields() {
    return fields;
  }

  public EventField field(String name) {
    int i = position(name);
    return i < 0 ? null : fields.get(i);
  }

  public int position(String name) {
    return order.position(name);
  }

  /**
   * The position of the column whose name is the ASCII bytes {@code b[offset, offset + length)}, or
   * -1: a name found without first making it a string.
   */
  int positionOfAscii(byte[] b, int offset, int length) {
    for (int i = 0; i < names.length; i++) {
      String name = names[i];
      if (name.length() == length && sameAscii(name, b, offset)) {
        return i;
      }
    }
    return -1;
  }

  private static boolean sameAscii(String name, byte[] b, int offset) {
    for (int c = 0; c < name.length(); c++) {
      if (name.charAt(c) != b[offset + c]) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return fields.stream().map(f -> f.name() + ":" + f.type()).toList().toString();
  }
}
