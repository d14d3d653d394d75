package dev.floe.worker.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads, on a thread of its own, the classes a starting worker is known to need, in the order it
 * needs them, while the main thread parses its configuration and connects: a worker woken from
 * zero loads ~9,900 classes before its first commit, one at a time on the thread that waits for
 * them. Classes are loaded, not initialized (no static initializer runs early or elsewhere); the
 * main thread then finds most of them defined. The list ({@value #LIST}) is a class list dumped
 * by a cold worker ({@code -XX:DumpLoadedClassList}); a name it no longer finds is skipped and
 * counted, so a stale list costs time, never correctness. {@code -Dfloe.classPreload=false} turns
 * it off.
 */
final class ClassPreloader {
  /** Missing names past this share of the list: it was dumped from code that has changed much since. */
  static final double STALE = 0.05;

  /** The classes of a cold start, one binary name per line, in load order. */
  static final String LIST = "/dev/floe/worker/cli/startup-classes.txt";

  /** What a preload did. */
  record Outcome(int loaded, int missing, long nanos) {}

  private ClassPreloader() {}

  /** Starts loading the listed classes on a daemon thread; returns it. */
  static Thread start() {
    Thread t = new Thread(() -> {
      List<String> names = names();
      Outcome o = preload(names, ClassPreloader.class.getClassLoader());
      // logged when done, well after the main thread configured logging
      Logger log = LoggerFactory.getLogger(ClassPreloader.class);
      if (o.missing() > STALE * names.size()) {
        log.warn("{} of the {} classes listed in {} no longer exist: the list is stale, regenerate it (see its header)",
            o.missing(), names.size(), LIST);
      } else {
        log.debug("preloaded {} classes in {} ms ({} listed no longer exist)", o.loaded(), o.nanos() / 1_000_000, o.missing());
      }
    }, "floe-preload");
    t.setDaemon(true);
    t.setPriority(Thread.MIN_PRIORITY);
    t.start();
    return t;
  }

  /** Loads each of {@code names} through {@code loader}, without initializing them. */
  static Outcome preload(List<String> names, ClassLoader loader) {
    long t0 = System.nanoTime();
    int loaded = 0;
    int missing = 0;
    for (String name : names) {
      try {
        Class.forName(name, false, loader);
        loaded++;
      } catch (ClassNotFoundException | LinkageError e) {
        missing++; // renamed or removed since the list was dumped: the main thread never asks for it
      }
    }
    return new Outcome(loaded, missing, System.nanoTime() - t0);
  }

  /** The listed class names, as {@link Class#forName} takes them. */
  static List<String> names() {
    InputStream in = ClassPreloader.class.getResourceAsStream(LIST);
    if (in == null) {
      return List.of(); // a build without the list starts as before
    }
    List<String> names = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        String name = line.strip();
        if (!name.isEmpty() && !name.startsWith("#") && !name.startsWith("@")) {
          int space = name.indexOf(' ');
          names.add((space < 0 ? name : name.substring(0, space)).replace('/', '.'));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return names;
  }
}
