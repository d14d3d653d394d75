package dev.floe.worker.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.floe.worker.decode.ChangeEvent;
import dev.floe.worker.decode.EventField;
import dev.floe.worker.decode.EventSchema;
import dev.floe.worker.decode.Op;
import dev.floe.worker.decode.RawRecord;
import dev.floe.worker.decode.ValueCodecs;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** The schemas of a batch, each once with the lowest LSN seen under it, gathered as its events are collected. */
class SchemaSurveyTest {
  private static final EventSchema V1 = schema("id");
  private static final EventSchema V2 = schema("id", "note");

  @Test
  void eachSchemaOnceWithTheLowestLsnOfAllItsRunsTruncatesAndSchemalessEventsLeftOut() {
    // given runs of two schemas, LSNs not in order, a truncate and a delete without a schema between them
    SchemaSurvey survey = new SchemaSurvey();
    List.of(event(Op.UPSERT, V1, 40L), event(Op.UPSERT, V1, 30L), event(Op.TRUNCATE, null, 5L), event(Op.UPSERT, V2, 50L),
        event(Op.DELETE, null, 1L), event(Op.UPSERT, V1, 20L), event(Op.UPSERT, V2, null)).forEach(survey::add);

    // then each schema is there once, with the lowest LSN of any of its runs
    Map<EventSchema, Long> lowest = survey.lowestLsns();
    assertThat(lowest).hasSize(2).containsEntry(V1, 20L).containsEntry(V2, 50L);
  }

  @Test
  void aSchemaWhoseEventsCarryNoLsnIsThereMarkedNoneSeen() {
    // given events of a source without LSNs
    SchemaSurvey survey = new SchemaSurvey();
    survey.add(event(Op.UPSERT, V1, null));
    survey.add(event(Op.DELETE, V1, null));

    // then the schema is there, marked as having seen none
    assertThat(survey.lowestLsns()).containsExactly(Map.entry(V1, SchemaSurvey.NONE_SEEN));
  }

  private static ChangeEvent event(Op op, EventSchema schema, Long lsn) {
    Object[] values = op == Op.UPSERT ? new Object[schema.fields().size()] : null;
    return new ChangeEvent(op, Map.of("id", 1L), schema, values, lsn, new RawRecord("t", 0, 0, null, null));
  }

  private static EventSchema schema(String... names) {
    return new EventSchema(java.util.Arrays.stream(names)
        .map(n -> new EventField(n, Types.LongType.get(), true, ValueCodecs.LONG)).toList());
  }
}
