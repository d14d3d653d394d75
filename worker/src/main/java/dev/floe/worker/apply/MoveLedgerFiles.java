package dev.floe.worker.apply;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.OutputFile;

/**
 * Stores a {@link MoveLedger} as a small JSON file in the table's metadata folder; the snapshot
 * summary names it. Each change writes a new file (the old one stays readable for older snapshots,
 * and orphan removal keeps every file a snapshot names).
 */
public final class MoveLedgerFiles {
  private MoveLedgerFiles() {}

  public static MoveLedger read(Table table, String location, TableLayout layout) {
    if (location == null) {
      return MoveLedger.EMPTY;
    }
    try (InputStream in = table.io().newInputFile(location).newStream()) {
      return MoveLedger.decode(new String(in.readAllBytes(), StandardCharsets.UTF_8), layout);
    } catch (IOException e) {
      throw new UncheckedIOException("could not read the key-change ledger " + location, e);
    }
  }

  /** Writes the ledger; returns its location, or null for an empty ledger (nothing waits). */
  public static String write(Table table, MoveLedger ledger, TableLayout layout) {
    if (ledger.isEmpty()) {
      return null;
    }
    String location = ((HasTableOperations) table).operations()
        .metadataFileLocation("floe-moves-" + UUID.randomUUID() + ".json");
    OutputFile file = table.io().newOutputFile(location);
    try (OutputStream out = file.create()) {
      out.write(ledger.encode(layout).getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("could not write the key-change ledger " + location, e);
    }
    return location;
  }
}
