package dev.floe.e2e.rest;

import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.rest.RESTCatalogServer;

/**
 * Iceberg's REST catalog test server, configured from CATALOG_* environment variables the way
 * the server itself reads them (CATALOG_URI, CATALOG_WAREHOUSE, CATALOG_IO__IMPL, ...), on the
 * port in REST_PORT. Runs until killed: the e2e tests stop and restart it to make an outage.
 */
public final class RestCatalogMain {
  private RestCatalogMain() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> env = new HashMap<>(System.getenv());
    System.out.println("floe e2e REST catalog on port " + env.get("REST_PORT"));
    RESTCatalogServer.main(args);
  }
}
