package dev.floe.worker.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.apicurio.registry.rest.client.RegistryClient;
import io.apicurio.registry.rest.client.RegistryClientFactory;
import io.apicurio.registry.rest.v2.beans.ArtifactMetaData;
import io.apicurio.registry.rest.v2.beans.IfExists;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/**
 * The registry the Avro tests use answers both of Apicurio's faces: a schema registered through
 * the Confluent-compatible API and one registered through the native API read back by their ids,
 * through both APIs, and Apicurio's own client (the one its converter uses) agrees.
 */
class SchemaRegistryServerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String ORDER = "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"floe.test\",\"fields\":["
      + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"qty\",\"type\":[\"null\",\"int\"],\"default\":null}]}";
  private static final String CUSTOMER = "{\"type\":\"record\",\"name\":\"Customer\",\"namespace\":\"floe.test\",\"fields\":["
      + "{\"name\":\"id\",\"type\":\"string\"}]}";

  @Test
  void aSchemaRegisteredThroughEitherApiReadsBackByItsIdThroughBoth() throws Exception {
    try (SchemaRegistryServer registry = SchemaRegistryServer.start()) {
      String subject = "orders-" + System.nanoTime() + "-value";

      // given: one schema registered through the Confluent-compatible API, another through the native v3 API
      JsonNode ccompat = post(registry.ccompatUrl() + "/subjects/" + subject + "/versions",
          JSON.createObjectNode().put("schema", ORDER).toString());
      long ccompatId = ccompat.path("id").asLong();
      JsonNode v3 = post(registry.v3Url() + "/groups/default/artifacts?ifExists=FIND_OR_CREATE_VERSION",
          "{\"artifactId\":\"customers-" + System.nanoTime() + "-value\",\"artifactType\":\"AVRO\",\"firstVersion\":{\"content\":"
              + "{\"content\":" + JSON.writeValueAsString(CUSTOMER) + ",\"contentType\":\"application/json\"}}}");
      long contentId = v3.path("version").path("contentId").asLong();
      long globalId = v3.path("version").path("globalId").asLong();

      // then: the Confluent id is the content id, and every id reads back the same schema
      assertThat(schema(get(registry.ccompatUrl() + "/schemas/ids/" + ccompatId).path("schema").asText())).isEqualTo(schema(ORDER));
      assertThat(schema(getText(registry.v3Url() + "/ids/contentIds/" + ccompatId))).isEqualTo(schema(ORDER));
      assertThat(schema(getText(registry.v3Url() + "/ids/contentIds/" + contentId))).isEqualTo(schema(CUSTOMER));
      assertThat(schema(getText(registry.v3Url() + "/ids/globalIds/" + globalId))).isEqualTo(schema(CUSTOMER));
      assertThat(schema(get(registry.ccompatUrl() + "/schemas/ids/" + contentId).path("schema").asText())).isEqualTo(schema(CUSTOMER));

      // and: Apicurio's own client (what its serdes and converter call) registers and resolves alike
      RegistryClient client = RegistryClientFactory.create(registry.v2Url());
      ArtifactMetaData md = client.createArtifact("default", subject, null, "AVRO", IfExists.RETURN_OR_UPDATE, false,
          new ByteArrayInputStream(ORDER.getBytes(StandardCharsets.UTF_8)));
      assertThat(md.getContentId()).as("equal content shares its id").isEqualTo(ccompatId);
      assertThat(schema(new String(client.getContentByGlobalId(md.getGlobalId()).readAllBytes(), StandardCharsets.UTF_8)))
          .isEqualTo(schema(ORDER));
      assertThat(schema(new String(client.getContentById(md.getContentId()).readAllBytes(), StandardCharsets.UTF_8)))
          .isEqualTo(schema(ORDER));

      // and: unknown ids are a 404, not an empty schema
      assertThat(status(registry.ccompatUrl() + "/schemas/ids/999999")).isEqualTo(404);
      assertThat(status(registry.v3Url() + "/ids/globalIds/999999")).isEqualTo(404);
      assertThat(registry.unserved()).isEmpty();
    }
  }

  private static Schema schema(String json) {
    return new Schema.Parser().parse(json);
  }

  private static JsonNode post(String url, String body) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as("POST %s: %s", url, r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private static JsonNode get(String url) throws Exception {
    return JSON.readTree(getText(url));
  }

  private static String getText(String url) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as("GET %s: %s", url, r.body()).isEqualTo(200);
    return r.body();
  }

  private static int status(String url) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }
}
