package dev.floe.worker.decode;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The columns of a change event's row image, in the order the source declares them. */
public final class EventSchema {
  private final List<EventField> fields;
  private final Map<String, Integer> positions = new HashMap<>();

  public EventSchema(List<EventField> fields) {
    this.fields = List.copyOf(fields);
    for (int i = 0; i < fields.size(); i++) {
      positions.put(fields.get(i).name(), i);
    }
  }

  public List<EventField> fields() {
    return fields;
  }

  public EventField field(String name) {
    Integer i = positions.get(name);
    return i == null ? null : fields.get(i);
  }

  public int position(String name) {
    return positions.getOrDefault(name, -1);
  }

  @Override
  public String toString() {
    return fields.stream().map(f -> f.name() + ":" + f.type()).toList().toString();
  }
}
