package dev.floe.worker.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;
import org.apache.iceberg.types.Types;

/** A column found by its expected position is the column found by its name. */
class EventSchemaTest {
  @Property
  void theExpectedPositionIsOnlyAHint(@ForAll @Size(min = 1, max = 8) Set<@StringLength(min = 1, max = 3) String> columns,
      @ForAll @StringLength(min = 1, max = 3) String looked, @ForAll @IntRange(min = -2, max = 10) int expected) {
    // given a schema of distinct column names
    List<String> names = List.copyOf(columns);
    EventSchema schema = new EventSchema(names.stream()
        .map(n -> new EventField(n, Types.StringType.get(), true, ValueCodecs.STRING)).toList());

    // when a name is looked up with any hint, then it is found where its name says, or not at all
    assertThat(schema.position(looked, expected)).isEqualTo(names.indexOf(looked));
    for (int i = 0; i < names.size(); i++) {
      assertThat(schema.position(names.get(i), expected)).isEqualTo(i);
    }
  }
}
