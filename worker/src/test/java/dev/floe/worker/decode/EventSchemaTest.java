package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;
import org.apache.iceberg.types.Types;

/**
 * A column is found where its name says, or not at all (the hint of the position expected next now
 * lives in {@link FieldOrder#next}, held to reading by name in {@link FieldOrderTest}).
 */
class EventSchemaTest {
  @Property
  void aColumnIsFoundWhereItsNameSays(@ForAll @Size(min = 1, max = 8) Set<@StringLength(min = 1, max = 3) String> columns,
      @ForAll @StringLength(min = 1, max = 3) String looked) {
    // given a schema of distinct column names
    List<String> names = List.copyOf(columns);
    EventSchema schema = new EventSchema(names.stream()
        .map(n -> new EventField(n, Types.StringType.get(), true, ValueCodecs.STRING)).toList());

    // when a name is looked up, then it is found where its name says, or not at all
    assertThat(schema.position(looked)).isEqualTo(names.indexOf(looked));
    assertThat(schema.field(looked)).isEqualTo(names.contains(looked) ? schema.fields().get(names.indexOf(looked)) : null);
    for (int i = 0; i < names.size(); i++) {
      assertThat(schema.position(names.get(i))).isEqualTo(i);
    }
  }
}
