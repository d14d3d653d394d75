package dev.floe.worker.catalog;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's local file system for a {@code file:} warehouse, checksums and all, except that it sets
 * a new file's permissions through {@code java.nio} instead of a {@code chmod} process. Without
 * Hadoop's native library (the shaded client has none), {@link RawLocalFileSystem} starts a
 * process for every file and directory it creates: ~20 per batch (data, deletes, manifests,
 * metadata and their checksum files), which took ~2.6 s of a full-size {@code orders} run's wall
 * clock, most of it inside commits waiting for manifest writers.
 */
public final class LocalFiles extends LocalFileSystem {
  private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

  public LocalFiles() {
    super(new WithoutShell());
  }

  /**
   * A Hadoop configuration whose {@code file:} scheme is this file system. Hadoop caches one file
   * system per scheme and user whatever the configuration, so the cache is bypassed for
   * {@code file:}: a local file system made first by other code (another configuration) would
   * otherwise be the one every table uses.
   */
  public static Configuration configure(Configuration conf) {
    conf.set("fs.file.impl", LocalFiles.class.getName());
    conf.setBoolean("fs.file.impl.disable.cache", true);
    return conf;
  }

  /** The raw local file system with permissions set in process. */
  static final class WithoutShell extends RawLocalFileSystem {
    @Override
    public void setPermission(Path p, FsPermission permission) throws IOException {
      if (!POSIX || permission.getStickyBit()) {
        super.setPermission(p, permission); // what java.nio cannot say: Hadoop's own way
        return;
      }
      // without a sticky bit, Hadoop's symbolic form is exactly the nine characters java.nio reads
      Files.setPosixFilePermissions(pathToFile(p).toPath(), PosixFilePermissions.fromString(permission.toString()));
    }
  }
}
