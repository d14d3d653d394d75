package dev.floe.worker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ClassPreloaderTest {

  /** Set by {@link Initialized}'s static initializer: tells whether preloading ran it. */
  static volatile boolean initializerRan;

  static final class Initialized {
    static {
      initializerRan = true;
    }
  }

  @Test
  void theShippedListStillNamesTheClassesAWorkerLoads() {
    // given the list the worker ships
    List<String> names = ClassPreloader.names();

    // then it names thousands of classes, the run path's among them, and nearly all of them still exist
    assertThat(names).hasSizeGreaterThan(5_000)
        .contains("dev.floe.worker.runtime.SinkRunner", "org.apache.kafka.clients.consumer.KafkaConsumer", "org.apache.iceberg.BaseRowDelta")
        .allMatch(n -> !n.contains("/") && !n.contains(" "));
    ClassPreloader.Outcome o = ClassPreloader.preload(names, ClassPreloader.class.getClassLoader());
    assertThat(o.missing()).as("names the worker no longer has: regenerate the list (see its header)")
        .isLessThanOrEqualTo((int) (ClassPreloader.STALE * names.size()));
    assertThat(o.loaded() + o.missing()).isEqualTo(names.size());
  }

  @Test
  void aClassIsLoadedWithoutRunningItsInitializerAndAMissingOneIsCounted() throws Exception {
    // given a class with a static initializer, and a name no class has
    String initialized = Initialized.class.getName();
    List<String> names = List.of("dev.floe.worker.cli.NoSuchClassAnyMore", initialized);

    // when
    ClassPreloader.Outcome o = ClassPreloader.preload(names, getClass().getClassLoader());

    // then the existing one is loaded, its initializer left for its first use, and the missing one counted
    assertThat(o.loaded()).isEqualTo(1);
    assertThat(o.missing()).isEqualTo(1);
    assertThat(initializerRan).isFalse();
    Class.forName(initialized, true, getClass().getClassLoader());
    assertThat(initializerRan).isTrue();
  }
}
