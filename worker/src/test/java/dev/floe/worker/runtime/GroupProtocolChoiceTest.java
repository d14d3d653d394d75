package dev.floe.worker.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.worker.config.ConfigException;
import java.util.Map;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.common.errors.UnreleasedInstanceIdException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.junit.jupiter.api.Test;

/** Which group protocol a worker joins with, from its source's settings and the brokers' answers. */
class GroupProtocolChoiceTest {
  @Test
  void aSourceThatSaysNothingJoinsWithTheConsumerProtocolAndFallsBackToClassic() {
    GroupProtocolChoice choice = GroupProtocolChoice.of(Map.of("security.protocol", "SASL_SSL"));

    assertThat(choice.first()).isEqualTo(GroupProtocol.CONSUMER);
    assertThat(choice.fallBackToClassic()).isTrue();
    GroupProtocolChoice refused = choice.refusedBecause(new UnsupportedVersionException("The cluster does not support the new CONSUMER group protocol"));
    assertThat(refused.first()).isEqualTo(GroupProtocol.CLASSIC);
    assertThat(refused.fallBackToClassic()).isFalse();
    assertThat(refused.why()).contains("does not support", "group.initial.rebalance.delay.ms");
  }

  @Test
  void aPredecessorThatCrashedUnderTheSameInstanceIdIsTakenOverByAClassicJoin() {
    GroupProtocolChoice choice = GroupProtocolChoice.of(Map.of());

    GroupProtocolChoice taken = choice.refusedBecause(new UnreleasedInstanceIdException("the instance id is owned by another member"));

    assertThat(taken.first()).isEqualTo(GroupProtocol.CLASSIC);
    assertThat(taken.why()).contains("stopped without leaving");
  }

  @Test
  void aProtocolNamedInTheSourcesSettingsIsKeptWithoutFallback() {
    GroupProtocolChoice classic = GroupProtocolChoice.of(Map.of("group.protocol", "classic"));
    GroupProtocolChoice consumer = GroupProtocolChoice.of(Map.of("group.protocol", "CONSUMER"));

    assertThat(classic.first()).isEqualTo(GroupProtocol.CLASSIC);
    assertThat(consumer.first()).isEqualTo(GroupProtocol.CONSUMER);
    assertThat(consumer.fallBackToClassic()).as("a protocol asked for is never swapped silently").isFalse();
    assertThatThrownBy(() -> consumer.refusedBecause(new UnsupportedVersionException("refused"))).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void anUnknownProtocolNameIsAConfigErrorThatSaysWhatToWrite() {
    assertThatThrownBy(() -> GroupProtocolChoice.of(Map.of("group.protocol", "cooperative")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("source.properties.group.protocol")
        .hasMessageContaining("classic or consumer");
  }

  @Test
  void settingsThatOnlyTheClassicProtocolAcceptsChooseIt() {
    for (String key : GroupProtocolChoice.CLASSIC_ONLY) {
      GroupProtocolChoice choice = GroupProtocolChoice.of(Map.of(key, "10000"));

      assertThat(choice.first()).as(key).isEqualTo(GroupProtocol.CLASSIC);
      assertThat(choice.why()).contains(key);
    }
  }
}
