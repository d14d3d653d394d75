package dev.floe.worker.apply;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.stream.IntStream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/** The visiting order of a file's rows is every row once, positions ascending, whatever the positions. */
class PositionOrderTest {
  @Property
  void everyRowOnceInAscendingPositions(@ForAll @Size(max = 300) long[] positions) {
    assertIsThePositionOrder(positions);
  }

  @Property
  void smallPositionsWithRepeats(@ForAll @Size(max = 300) @LongRange(min = 0, max = 50) long[] positions) {
    assertIsThePositionOrder(positions);
  }

  private static void assertIsThePositionOrder(long[] positions) {
    // given rows at positions, in a longer array whose tail is not theirs
    long[] held = Arrays.copyOf(positions, positions.length + 3);

    // when ordered
    int[] order = PositionOrder.of(held, positions.length);

    // then each row comes once, by position, ties in their first order
    assertThat(order).containsExactlyInAnyOrder(IntStream.range(0, positions.length).toArray());
    for (int i = 1; i < order.length; i++) {
      long before = positions[order[i - 1]];
      long after = positions[order[i]];
      assertThat(before < after || (before == after && order[i - 1] < order[i])).isTrue();
    }
  }
}
