package dev.floe.e2e.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * The worker image's JVM flags, read from the Jib configuration in {@code worker/pom.xml}, so a
 * benchmark's worker runs as a pod's does without a second copy of them to drift: the image sizes
 * its heap as a share of the container's memory, a benchmark's worker gets that heap fixed.
 */
final class ImageJvmFlags {
  private ImageJvmFlags() {}

  /**
   * @param pom the worker module's POM
   * @param heap the worker's heap, as {@code -Xmx} takes it ({@code 2g}): it replaces the image's
   *     {@code MaxRAMPercentage} and {@code InitialRAMPercentage}, whose share of this machine's
   *     memory would be no pod's heap
   */
  static List<String> of(Path pom, String heap) {
    List<String> flags = new ArrayList<>();
    for (String flag : declared(pom)) {
      if (flag.startsWith("-XX:MaxRAMPercentage=")) {
        flags.add("-Xmx" + heap);
      } else if (flag.startsWith("-XX:InitialRAMPercentage=")) {
        flags.add("-Xms" + heap);
      } else {
        flags.add(flag);
      }
    }
    return flags;
  }

  /** The {@code jvmFlag}s of the POM's Jib container, in their order; fails when there are none (a moved or renamed configuration). */
  static List<String> declared(Path pom) {
    try (InputStream in = Files.newInputStream(pom)) {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      Element root = factory.newDocumentBuilder().parse(in).getDocumentElement();
      NodeList found = root.getElementsByTagName("jvmFlag");
      List<String> flags = new ArrayList<>();
      for (int i = 0; i < found.getLength(); i++) {
        if (found.item(i).getParentNode().getParentNode() instanceof Element container && container.getTagName().equals("container")) {
          flags.add(found.item(i).getTextContent().strip());
        }
      }
      if (flags.isEmpty()) {
        throw new IllegalStateException(pom + " declares no jvmFlag in a Jib container: the benchmark's worker would not run as the image does");
      }
      return flags;
    } catch (IOException | ParserConfigurationException | SAXException e) {
      throw new IllegalStateException("cannot read the worker image's JVM flags from " + pom, e);
    }
  }
}
