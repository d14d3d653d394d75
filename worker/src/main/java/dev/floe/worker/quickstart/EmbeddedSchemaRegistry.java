package dev.floe.worker.quickstart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A schema registry in this process, for the quickstart ({@code --format avro}) and for tests where
 * no real registry server can run (the Apicurio server's module jars are not served here, see the
 * tests' SchemaRegistryServer): a stand-in for Apicurio Registry, the part of its REST
 * APIs that Apicurio's serdes and converters and a decoder use, with Apicurio's id rules. An
 * artifact is one subject ({@code topic-key}, {@code topic-value}); every new version gets the next
 * globalId; every distinct content gets the next contentId, shared by versions of equal content; the
 * Confluent-compatible API's schema id is the contentId (Apicurio's default, legacy id mode off).
 * Served: native v2 and v3 {@code ids/globalIds/{id}}, {@code ids/contentIds/{id}} (and their
 * {@code /references}), v2 create-artifact with {@code ifExists}, v3 create-artifact, and ccompat v7
 * {@code subjects/{s}/versions} and {@code schemas/ids/{id}}. Anything else answers 404 with the path,
 * so a client that needs more shows what.
 */
public final class EmbeddedSchemaRegistry implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern IDS = Pattern.compile("/apis/registry/v[23]/ids/(globalIds|contentIds)/(\\d+)(/references)?");
  private static final Pattern V2_CREATE = Pattern.compile("/apis/registry/v2/groups/([^/]+)/artifacts");
  private static final Pattern V3_CREATE = Pattern.compile("/apis/registry/v3/groups/([^/]+)/artifacts");
  private static final Pattern CCOMPAT_REGISTER = Pattern.compile("/apis/ccompat/v7/subjects/([^/]+)/versions");
  private static final Pattern CCOMPAT_BY_ID = Pattern.compile("/apis/ccompat/v7/schemas/ids/(\\d+)(/schema)?");

  /** One artifact version: which artifact, its number, its ids. */
  private record Version(String group, String artifactId, String type, int version, long globalId, long contentId) {}

  private final HttpServer server;
  private final Map<String, Long> contentIds = new HashMap<>();
  private final List<String> contents = new ArrayList<>(); // index = contentId - 1
  private final Map<Long, Version> byGlobalId = new LinkedHashMap<>();
  private final Map<String, List<Version>> artifacts = new HashMap<>(); // group/artifactId -> versions
  private final List<String> unserved = new ArrayList<>();

  private EmbeddedSchemaRegistry(HttpServer server) {
    this.server = server;
  }

  /** Listens on a free loopback port. */
  public static EmbeddedSchemaRegistry start() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry(server);
    server.createContext("/", registry::handle);
    server.start();
    return registry;
  }

  /** {@code http://127.0.0.1:PORT}: the APIs are under {@code /apis/...}. */
  public String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Requests it could not answer (method and path), for a test's failure message. */
  public synchronized List<String> unserved() {
    return List.copyOf(unserved);
  }

  @Override
  public void close() {
    server.stop(0);
  }

  private void handle(HttpExchange ex) throws IOException {
    try {
      String path = URI.create(ex.getRequestURI().getRawPath()).getPath();
      String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      Matcher m;
      synchronized (this) {
        if ("GET".equals(ex.getRequestMethod()) && (m = IDS.matcher(path)).matches()) {
          long id = Long.parseLong(m.group(2));
          String content = "globalIds".equals(m.group(1)) ? contentOfGlobalId(id) : contentOfContentId(id);
          if (content == null) {
            reply(ex, 404, error("No content with " + m.group(1) + " " + id));
          } else {
            reply(ex, 200, m.group(3) != null ? "[]" : content);
          }
        } else if ("POST".equals(ex.getRequestMethod()) && (m = V2_CREATE.matcher(path)).matches()) {
          String artifactId = ex.getRequestHeaders().getFirst("X-Registry-ArtifactId");
          String type = orDefault(ex.getRequestHeaders().getFirst("X-Registry-ArtifactType"), "AVRO");
          String contentType = orDefault(ex.getRequestHeaders().getFirst("Content-Type"), "");
          String content = contentType.contains("create.extended") ? JSON.readTree(body).path("content").asText() : body;
          Version v = register(m.group(1), artifactId, type, content, query(ex, "ifExists"));
          reply(ex, 200, JSON.writeValueAsString(v2MetaData(v)));
        } else if ("POST".equals(ex.getRequestMethod()) && (m = V3_CREATE.matcher(path)).matches()) {
          JsonNode req = JSON.readTree(body);
          String content = req.path("firstVersion").path("content").path("content").asText();
          Version v = register(m.group(1), req.path("artifactId").asText(), orDefault(req.path("artifactType").asText(null), "AVRO"),
              content, query(ex, "ifExists"));
          ObjectNode out = JSON.createObjectNode();
          out.putObject("artifact").put("groupId", v.group()).put("artifactId", v.artifactId()).put("artifactType", v.type());
          out.set("version", v3Version(v));
          reply(ex, 200, JSON.writeValueAsString(out));
        } else if ("POST".equals(ex.getRequestMethod()) && (m = CCOMPAT_REGISTER.matcher(path)).matches()) {
          JsonNode req = JSON.readTree(body);
          String type = orDefault(req.path("schemaType").asText(null), "AVRO");
          Version v = register("default", m.group(1), type, req.path("schema").asText(), "RETURN_OR_UPDATE");
          reply(ex, 200, JSON.createObjectNode().put("id", v.contentId()).toString());
        } else if ("GET".equals(ex.getRequestMethod()) && (m = CCOMPAT_BY_ID.matcher(path)).matches()) {
          String content = contentOfContentId(Long.parseLong(m.group(1)));
          if (content == null) {
            reply(ex, 404, JSON.createObjectNode().put("error_code", 40403).put("message", "Schema not found").toString());
          } else if (m.group(2) != null) {
            reply(ex, 200, content);
          } else {
            reply(ex, 200, JSON.createObjectNode().put("schema", content).toString());
          }
        } else {
          unserved.add(ex.getRequestMethod() + " " + ex.getRequestURI());
          reply(ex, 404, error("not served by the in-process registry: " + ex.getRequestMethod() + " " + path));
        }
      }
    } catch (AlreadyExists e) {
      reply(ex, 409, JSON.createObjectNode().put("error_code", 409).put("message", e.getMessage()).toString());
    } catch (RuntimeException e) {
      reply(ex, 500, error(e.toString()));
    } finally {
      ex.close();
    }
  }

  /**
   * Apicurio's {@code ifExists} rules for an artifact that exists: {@code UPDATE} always adds a
   * version; {@code RETURN_OR_UPDATE} and {@code FIND_OR_CREATE_VERSION} return a version of equal
   * content if there is one, else add one; {@code FAIL} (the default) refuses. Equal content shares
   * its contentId with every earlier version, of any artifact.
   */
  private Version register(String group, String artifactId, String type, String content, String ifExists) {
    String key = group + "/" + artifactId;
    List<Version> versions = artifacts.computeIfAbsent(key, k -> new ArrayList<>());
    if (!versions.isEmpty() && (ifExists == null || "FAIL".equals(ifExists))) {
      throw new AlreadyExists(key);
    }
    long contentId = contentIds.computeIfAbsent(content, c -> {
      contents.add(c);
      return (long) contents.size();
    });
    if (!"UPDATE".equals(ifExists)) {
      for (Version v : versions) {
        if (v.contentId() == contentId) {
          return v;
        }
      }
    }
    Version v = new Version(group, artifactId, type, versions.size() + 1, byGlobalId.size() + 1L, contentId);
    versions.add(v);
    byGlobalId.put(v.globalId(), v);
    return v;
  }

  /** The artifact exists and the request said nothing else (409). */
  private static final class AlreadyExists extends RuntimeException {
    AlreadyExists(String artifact) {
      super("Artifact " + artifact + " already exists");
    }
  }

  private String contentOfGlobalId(long id) {
    Version v = byGlobalId.get(id);
    return v == null ? null : contents.get((int) v.contentId() - 1);
  }

  private String contentOfContentId(long id) {
    return id < 1 || id > contents.size() ? null : contents.get((int) id - 1);
  }

  private static ObjectNode v2MetaData(Version v) {
    ObjectNode n = JSON.createObjectNode();
    n.put("groupId", v.group()).put("id", v.artifactId()).put("version", String.valueOf(v.version()))
        .put("type", v.type()).put("globalId", v.globalId()).put("contentId", v.contentId()).put("state", "ENABLED");
    n.putArray("references");
    return n;
  }

  private static ObjectNode v3Version(Version v) {
    ObjectNode n = JSON.createObjectNode();
    n.put("groupId", v.group()).put("artifactId", v.artifactId()).put("version", String.valueOf(v.version()))
        .put("artifactType", v.type()).put("globalId", v.globalId()).put("contentId", v.contentId()).put("state", "ENABLED");
    return n;
  }

  private static String query(HttpExchange ex, String name) {
    String q = ex.getRequestURI().getRawQuery();
    if (q == null) {
      return null;
    }
    for (String kv : q.split("&")) {
      if (kv.startsWith(name + "=")) {
        return kv.substring(name.length() + 1);
      }
    }
    return null;
  }

  private static String error(String message) {
    return JSON.createObjectNode().put("error_code", 404).put("message", message).toString();
  }

  private static String orDefault(String s, String fallback) {
    return s == null || s.isBlank() ? fallback : s;
  }

  private static void reply(HttpExchange ex, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      ex.getResponseBody().write(bytes);
    }
  }
}
