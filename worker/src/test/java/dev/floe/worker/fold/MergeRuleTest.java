package dev.floe.worker.fold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** How versions of one column combine, and why a batch may be folded before it meets the stored row. */
class MergeRuleTest {
  private static final Object U = Unchanged.VALUE;

  @Test
  void eachRuleCombinesAnOlderAndANewerVersion() {
    assertThat(MergeRule.LAST.combine(1L, null)).isNull();
    assertThat(MergeRule.LAST_NON_NULL.combine(1L, null)).isEqualTo(1L);
    assertThat(MergeRule.SUM.combine(2L, 3L)).isEqualTo(5L);
    assertThat(MergeRule.SUM.combine(new BigDecimal("1.10"), new BigDecimal("2.05"))).isEqualTo(new BigDecimal("3.15"));
    assertThat(MergeRule.SUM.combine(null, 3)).isEqualTo(3);
    assertThat(MergeRule.MIN.combine(2L, 3L)).isEqualTo(2L);
    assertThat(MergeRule.MAX.combine("a", "b")).isEqualTo("b");
    assertThat(MergeRule.FIRST.combine(null, 4L)).isEqualTo(4L);
    assertThat(MergeRule.FIRST.combine(1L, 4L)).isEqualTo(1L);
  }

  @Test
  void aToastPlaceholderKeepsWhatCameBeforeUnderEveryRule() {
    for (MergeRule rule : MergeRule.values()) {
      assertThat(rule.combine(7L, U)).as(rule.name()).isEqualTo(7L);
      assertThat(rule.combine(U, 7L)).as(rule.name()).isEqualTo(7L);
    }
  }

  @Test
  void anIntegerSumThatOverflowsFailsInsteadOfWrapping() {
    assertThatThrownBy(() -> MergeRule.SUM.combine(Integer.MAX_VALUE, 1)).isInstanceOf(ArithmeticException.class);
  }

  /** The engine folds a batch first and meets the stored row later; both orders must agree. */
  @Property
  void foldingTheBatchFirstEqualsApplyingVersionsOneByOne(
      @ForAll MergeRule rule, @ForAll("stored") Long stored, @ForAll("versions") List<Object> versions) {
    Object oneByOne = stored;
    for (Object v : versions) {
      oneByOne = rule.combine(oneByOne, v);
    }
    Object folded = U;
    for (Object v : versions) {
      folded = rule.combine(folded, v);
    }
    assertThat(rule.combine(stored, folded)).isEqualTo(oneByOne);
  }

  @Provide
  Arbitrary<Long> stored() {
    return Arbitraries.longs().between(-50, 50).injectNull(0.3);
  }

  @Provide
  Arbitrary<List<Object>> versions() {
    return Arbitraries.oneOf(Arbitraries.longs().between(-50, 50).map(v -> (Object) v), Arbitraries.just(null), Arbitraries.just(U))
        .list().ofMaxSize(6);
  }

}
