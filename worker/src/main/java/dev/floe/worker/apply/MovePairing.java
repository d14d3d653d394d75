package dev.floe.worker.apply;

import dev.floe.worker.fold.FoldedBatch;
import dev.floe.worker.fold.RowKey;
import dev.floe.worker.fold.Unchanged;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Pairs the halves of primary-key updates in one batch with each other and with the halves that
 * wait in the {@link MoveLedger}, and computes the ledger the batch leaves behind: which deletes
 * settle rows created earlier, which removed images must wait for their creates, which creates
 * must wait for their deletes.
 */
final class MovePairing {
  private final MoveLedger ledger;
  private final Map<Long, FoldedBatch.KeyMove> arrivals = new LinkedHashMap<>();
  private final Map<Long, FoldedBatch.KeyMove> departures = new LinkedHashMap<>();
  /** Deletes of this batch whose creates an earlier batch applied: LSN to the entry they settle. */
  private final Map<Long, MoveLedger.Arrived> settling = new LinkedHashMap<>();

  private MovePairing(MoveLedger ledger) {
    this.ledger = ledger;
  }

  static MovePairing of(FoldedBatch folded, MoveLedger ledger) {
    MovePairing p = new MovePairing(ledger);
    folded.arrivals().forEach(m -> p.arrivals.put(m.lsn(), m));
    folded.departures().forEach(m -> p.departures.put(m.lsn(), m));
    p.departures.forEach((lsn, m) -> {
      MoveLedger.Arrived waiting = ledger.arrived(lsn);
      if (!p.arrivals.containsKey(lsn) && waiting != null) {
        p.settling.put(lsn, waiting);
      }
    });
    return p;
  }

  /** Keys whose stored rows hold values that a delete of this batch settles. */
  Set<RowKey> repairTargets() {
    Set<RowKey> out = new LinkedHashSet<>();
    settling.values().forEach(a -> {
      if (a.target() != null && !a.columns().isEmpty()) {
        out.add(a.target());
      }
    });
    return out;
  }

  /** The old keys of this batch's key changes: their rows are the images the new keys take. */
  Set<RowKey> oldKeys() {
    Set<RowKey> out = new HashSet<>();
    arrivals.values().forEach(m -> out.add(m.from()));
    departures.values().forEach(m -> out.add(m.from()));
    return out;
  }

  /**
   * Settles the pending values in {@code rows} (in place: what is left pending is written as its
   * best effort) and returns the ledger after this batch. {@code touched} are the keys the batch
   * resolved (their stored pending values were read, so they are found again in {@code rows}).
   */
  MoveLedger settle(MovedImages images, List<Object[]> rows, Set<RowKey> touched, TableLayout layout) {
    Map<Long, Object[]> settled = new HashMap<>();
    settling.forEach((lsn, a) -> settled.put(lsn, images.removedBy(departures.get(lsn).from(), lsn)));

    Map<Long, MoveLedger.Departed> departed = new LinkedHashMap<>();
    for (MoveLedger.Departed d : ledger.departed()) {
      if (!images.consumed().contains(d.lsn())) {
        departed.put(d.lsn(), d);
      }
    }
    departures.forEach((lsn, m) -> {
      if (!arrivals.containsKey(lsn) && !settling.containsKey(lsn)) {
        Object[] image = images.removedBy(m.from(), lsn);
        departed.put(lsn, new MoveLedger.Departed(lsn, m.from(), known(image == null ? new Object[layout.columnCount()] : image)));
      }
    });

    Map<Long, RowKey> targets = new HashMap<>();
    Map<Long, Set<Integer>> columns = new HashMap<>();
    Map<Long, RowKey> oldKeys = new HashMap<>();
    for (MoveLedger.Arrived a : ledger.arrived()) {
      if (settling.containsKey(a.lsn())) {
        continue;
      }
      oldKeys.put(a.lsn(), a.oldKey());
      targets.put(a.lsn(), a.target());
      boolean rederived = a.target() == null || touched.contains(a.target());
      columns.put(a.lsn(), rederived ? new TreeSet<>() : new TreeSet<>(a.columns()));
    }
    images.awaiting().forEach((lsn, old) -> {
      oldKeys.put(lsn, old);
      FoldedBatch.KeyMove m = arrivals.get(lsn);
      targets.put(lsn, m == null ? null : m.to());
      columns.put(lsn, new TreeSet<>());
    });

    // Pending values exist only where the ledger had waiting creates or this batch made some.
    boolean pendingPossible = !ledger.arrived().isEmpty() || !images.awaiting().isEmpty() || !ledger.departed().isEmpty();
    for (Object[] row : pendingPossible ? rows : List.<Object[]>of()) {
      for (int i = 0; i < row.length; i++) {
        if (!(row[i] instanceof PendingValue)) {
          continue;
        }
        Object v = settledValue(row[i], settled);
        if (v instanceof PendingValue p && columns.containsKey(p.lsn())) {
          targets.put(p.lsn(), layout.keyOfRow(row));
          columns.get(p.lsn()).add(i);
        }
        row[i] = PendingValue.unwrap(v);
      }
    }
    for (MoveLedger.Departed d : new ArrayList<>(departed.values())) {
      Object[] image = d.image().clone();
      for (int i = 0; i < image.length; i++) {
        Object v = settledValue(image[i], settled);
        if (v instanceof PendingValue p && columns.containsKey(p.lsn())) {
          targets.put(p.lsn(), null); // travelling inside a removed image
          columns.get(p.lsn()).add(i);
        } else {
          v = PendingValue.unwrap(v);
        }
        image[i] = v;
      }
      departed.put(d.lsn(), new MoveLedger.Departed(d.lsn(), d.oldKey(), image));
    }

    Map<Long, MoveLedger.Arrived> arrived = new LinkedHashMap<>();
    oldKeys.forEach((lsn, old) -> arrived.put(lsn, new MoveLedger.Arrived(lsn, old, targets.get(lsn), columns.get(lsn))));
    return new MoveLedger(departed, arrived);
  }

  /** A pending value whose delete half this batch applied takes the value the delete found. */
  private static Object settledValue(Object v, Map<Long, Object[]> settled) {
    for (int hops = 0; v instanceof PendingValue p && settled.containsKey(p.lsn()) && hops < 64; hops++) {
      Object[] image = settled.get(p.lsn());
      v = image == null ? null : image[p.column()];
      if (v == Unchanged.VALUE) {
        v = null;
      }
    }
    return v;
  }

  private static Object[] known(Object[] image) {
    Object[] out = image.clone();
    for (int i = 0; i < out.length; i++) {
      if (out[i] == Unchanged.VALUE) {
        out[i] = null;
      }
    }
    return out;
  }
}
