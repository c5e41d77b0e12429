package dev.floe.iceberg.rest;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.RESTCatalogProperties;
import org.apache.iceberg.rest.RESTCatalogProperties.SnapshotMode;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.rest.requests.CreateNamespaceRequest;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.apache.iceberg.rest.requests.RenameTableRequest;
import org.apache.iceberg.rest.requests.UpdateNamespacePropertiesRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.rest.responses.ConfigResponse;

/**
 * The Iceberg REST catalog routes this test server serves (no prefix, namespaces and tables; no
 * views, scan planning, credentials or metrics), each mapped to Iceberg's own server-side logic
 * in {@link CatalogHandlers} over a backing catalog. Exceptions from the handlers propagate; the
 * server turns them into error responses.
 */
final class RestCatalogRoutes {
  /** The spec's default namespace separator in a path segment (URL-encoded 0x1F). */
  private static final String NAMESPACE_SEPARATOR = "%1F";

  /** Advertised in /v1/config so the client calls nothing else. */
  static final List<Endpoint> ENDPOINTS =
      List.of(
          Endpoint.V1_LIST_NAMESPACES,
          Endpoint.V1_CREATE_NAMESPACE,
          Endpoint.V1_LOAD_NAMESPACE,
          Endpoint.V1_NAMESPACE_EXISTS,
          Endpoint.V1_UPDATE_NAMESPACE,
          Endpoint.V1_DELETE_NAMESPACE,
          Endpoint.V1_LIST_TABLES,
          Endpoint.V1_CREATE_TABLE,
          Endpoint.V1_LOAD_TABLE,
          Endpoint.V1_TABLE_EXISTS,
          Endpoint.V1_UPDATE_TABLE,
          Endpoint.V1_DELETE_TABLE,
          Endpoint.V1_RENAME_TABLE);

  /** A route's answer: a status and a JSON body (null for none). */
  record Reply(int status, Object body) {
    static Reply json(Object body) {
      return new Reply(200, body);
    }

    static Reply noContent() {
      return new Reply(204, null);
    }
  }

  private final Catalog catalog;
  private final SupportsNamespaces namespaces;
  private final ObjectMapper json;
  private final Map<TableIdentifier, Runnable> beforeNextCommit = new ConcurrentHashMap<>();

  RestCatalogRoutes(Catalog catalog, ObjectMapper json) {
    if (!(catalog instanceof SupportsNamespaces ns)) {
      throw new IllegalArgumentException("the backing catalog must support namespaces: " + catalog);
    }
    this.catalog = catalog;
    this.namespaces = ns;
    this.json = json;
  }

  /** See {@link LoopbackRestCatalogServer#beforeNextCommit}. */
  void beforeNextCommit(TableIdentifier table, Runnable action) {
    beforeNextCommit.put(table, action);
  }

  /**
   * Serves one request.
   *
   * @param path the raw (still URL-encoded) path segments after {@code /v1}
   * @return null when no route matches
   */
  Reply handle(String method, List<String> path, Map<String, String> query, byte[] body) {
    int n = path.size();
    if (n == 1 && path.get(0).equals("config") && method.equals("GET")) {
      return Reply.json(ConfigResponse.builder().withEndpoints(ENDPOINTS).build());
    }
    if (n == 2 && path.equals(List.of("tables", "rename")) && method.equals("POST")) {
      CatalogHandlers.renameTable(catalog, read(body, RenameTableRequest.class));
      return Reply.noContent();
    }
    if (n == 0 || !path.get(0).equals("namespaces")) {
      return null;
    }
    if (n == 1) {
      return namespacesRoute(method, query, body);
    }
    Namespace namespace = RESTUtil.decodeNamespace(path.get(1), NAMESPACE_SEPARATOR);
    if (n == 2) {
      return namespaceRoute(method, namespace);
    }
    if (n == 3 && path.get(2).equals("properties") && method.equals("POST")) {
      return Reply.json(
          CatalogHandlers.updateNamespaceProperties(
              namespaces, namespace, read(body, UpdateNamespacePropertiesRequest.class)));
    }
    if (n == 3 && path.get(2).equals("tables")) {
      return tablesRoute(method, namespace, query, body);
    }
    if (n == 4 && path.get(2).equals("tables")) {
      TableIdentifier table = TableIdentifier.of(namespace, RESTUtil.decodeString(path.get(3)));
      return tableRoute(method, table, query, body);
    }
    return null;
  }

  private Reply namespacesRoute(String method, Map<String, String> query, byte[] body) {
    return switch (method) {
      case "GET" -> {
        String parent = query.get("parent");
        Namespace parentNs = parent == null ? Namespace.empty() : RESTUtil.namespaceFromQueryParam(parent);
        String pageSize = query.get("pageSize");
        yield Reply.json(
            pageSize == null
                ? CatalogHandlers.listNamespaces(namespaces, parentNs)
                : CatalogHandlers.listNamespaces(namespaces, parentNs, query.get("pageToken"), pageSize));
      }
      case "POST" -> Reply.json(CatalogHandlers.createNamespace(namespaces, read(body, CreateNamespaceRequest.class)));
      default -> null;
    };
  }

  private Reply namespaceRoute(String method, Namespace namespace) {
    return switch (method) {
      case "GET" -> Reply.json(CatalogHandlers.loadNamespace(namespaces, namespace));
      case "HEAD" -> {
        CatalogHandlers.namespaceExists(namespaces, namespace);
        yield Reply.noContent();
      }
      case "DELETE" -> {
        CatalogHandlers.dropNamespace(namespaces, namespace);
        yield Reply.noContent();
      }
      default -> null;
    };
  }

  private Reply tablesRoute(String method, Namespace namespace, Map<String, String> query, byte[] body) {
    return switch (method) {
      case "GET" -> {
        String pageSize = query.get("pageSize");
        yield Reply.json(
            pageSize == null
                ? CatalogHandlers.listTables(catalog, namespace)
                : CatalogHandlers.listTables(catalog, namespace, query.get("pageToken"), pageSize));
      }
      case "POST" -> {
        CreateTableRequest request = read(body, CreateTableRequest.class);
        yield Reply.json(
            request.stageCreate()
                ? CatalogHandlers.stageTableCreate(catalog, namespace, request)
                : CatalogHandlers.createTable(catalog, namespace, request));
      }
      default -> null;
    };
  }

  private Reply tableRoute(String method, TableIdentifier table, Map<String, String> query, byte[] body) {
    return switch (method) {
      case "GET" -> {
        String snapshots = query.getOrDefault(RESTCatalogProperties.SNAPSHOTS_QUERY_PARAMETER, "all");
        SnapshotMode mode = SnapshotMode.valueOf(snapshots.toUpperCase(Locale.ROOT));
        yield Reply.json(CatalogHandlers.loadTable(catalog, table, mode));
      }
      case "HEAD" -> {
        CatalogHandlers.tableExists(catalog, table);
        yield Reply.noContent();
      }
      // A commit: Iceberg validates the request's requirements against the current metadata and
      // throws CommitFailedException when another commit got there first (-> 409, client retries).
      case "POST" -> {
        Runnable action = beforeNextCommit.remove(table);
        if (action != null) {
          action.run();
        }
        yield Reply.json(CatalogHandlers.updateTable(catalog, table, read(body, UpdateTableRequest.class)));
      }
      case "DELETE" -> {
        if (Boolean.parseBoolean(query.get("purgeRequested"))) {
          CatalogHandlers.purgeTable(catalog, table);
        } else {
          CatalogHandlers.dropTable(catalog, table);
        }
        yield Reply.noContent();
      }
      default -> null;
    };
  }

  private <T> T read(byte[] body, Class<T> type) {
    if (body.length == 0) {
      throw new BadRequestException("missing request body for %s", type.getSimpleName());
    }
    try {
      return json.readValue(body, type);
    } catch (IOException e) {
      // Malformed JSON is the client's fault: 400, not 500.
      throw new BadRequestException(e, "malformed %s: %s", type.getSimpleName(), e.getMessage());
    }
  }
}
