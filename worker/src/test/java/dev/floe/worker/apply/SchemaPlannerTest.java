package dev.floe.worker.apply;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.worker.decode.ConnectSchemaMapper;
import dev.floe.worker.decode.EventSchema;
import java.math.BigDecimal;
import java.time.LocalDate;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** The source column's default reaches the plan of a new column, and only of a new column. */
class SchemaPlannerTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final Schema TABLE = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()));

  @Test
  void aNewColumnsDefaultIsDecodedWithItsCodecAndCarriedIntoThePlan() throws Exception {
    // given a row schema (as JsonConverter writes it) with three new columns that have defaults
    // (1.50 as Connect Decimal bytes "AJY=", 2024-01-02 as epoch days) and one without
    EventSchema event = rowSchema("""
        {"type":"int64","optional":false,"field":"id"},
        {"type":"string","optional":true,"field":"name"},
        {"type":"string","optional":true,"default":"en","field":"lang"},
        {"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,
         "parameters":{"scale":"2","connect.decimal.precision":"10"},"default":"AJY=","field":"price"},
        {"type":"int32","optional":true,"name":"io.debezium.time.Date","version":1,"default":19724,"field":"since"},
        {"type":"int32","optional":true,"field":"plain"}""");

    // when the table plans to follow it
    SchemaPlanner.Plan plan = SchemaPlanner.plan(TABLE, event);

    // then every new column is added, with the source's default where it has one, exactly
    assertThat(plan.additions()).extracting(Types.NestedField::name).containsExactly("lang", "price", "since", "plain");
    assertThat(plan.defaultOf("lang")).isEqualTo("en");
    assertThat(plan.defaultOf("price")).isEqualTo(new BigDecimal("1.50"));
    assertThat(plan.defaultOf("since")).isEqualTo(LocalDate.of(2024, 1, 2));
    assertThat(plan.defaultOf("plain")).isNull();
    assertThat(plan.defaults()).containsOnlyKeys("lang", "price", "since");
  }

  @Test
  void aDefaultOfAColumnTheTableHasChangesNothing() throws Exception {
    // given the source set a default on a column the table already has (ALTER COLUMN SET DEFAULT)
    EventSchema event = rowSchema("""
        {"type":"int64","optional":false,"field":"id"},
        {"type":"string","optional":true,"default":"anonymous","field":"name"}""");

    // when the table plans to follow it
    SchemaPlanner.Plan plan = SchemaPlanner.plan(TABLE, event);

    // then there is nothing to do: existing rows keep their values at the source too
    assertThat(plan.isEmpty()).isTrue();
    assertThat(plan.defaults()).isEmpty();
  }

  @Test
  void aNullDefaultIsNoDefault() throws Exception {
    // given a new column whose default is an explicit null
    EventSchema event = rowSchema("""
        {"type":"int64","optional":false,"field":"id"},
        {"type":"string","optional":true,"default":null,"field":"note"}""");

    // when the table plans to follow it
    SchemaPlanner.Plan plan = SchemaPlanner.plan(TABLE, event);

    // then it is a bare optional column
    assertThat(plan.additions()).extracting(Types.NestedField::name).containsExactly("note");
    assertThat(plan.defaults()).isEmpty();
  }

  private static EventSchema rowSchema(String fields) throws Exception {
    return ConnectSchemaMapper.rowSchema(JSON.readTree("{\"type\":\"struct\",\"fields\":[" + fields + "]}"));
  }
}
