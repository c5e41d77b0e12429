package dev.floe.iceberg.s3;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.domain.Blob;
import org.jclouds.blobstore.domain.BlobMetadata;
import org.jclouds.blobstore.domain.MultipartPart;
import org.jclouds.blobstore.domain.MultipartUpload;
import org.jclouds.blobstore.domain.PageSet;
import org.jclouds.blobstore.domain.StorageMetadata;
import org.jclouds.blobstore.options.GetOptions;
import org.jclouds.blobstore.options.ListContainerOptions;
import org.jclouds.blobstore.options.PutOptions;
import org.jclouds.blobstore.util.ForwardingBlobStore;
import org.jclouds.filesystem.reference.FilesystemConstants;
import org.jclouds.http.HttpResponse;
import org.jclouds.http.HttpResponseException;
import org.jclouds.io.Payload;

/**
 * An S3-compatible object store for tests: s3proxy, in this JVM, on a free loopback port, keeping
 * objects as plain files under a local folder (jclouds' filesystem provider), with one bucket and
 * one static key pair (requests must be signed with it, as against S3).
 *
 * <p>The caller owns the instance and must {@link #close()} it; the folder is the caller's too.
 * s3proxy runs in-process: it shades its own Jetty, and nothing else on this module's test
 * classpath uses jclouds or the rest of its dependencies (the pom keeps the AWS SDK's Netty client
 * out, so s3proxy's Azure backend brings the only Netty).
 */
public final class LoopbackS3Server implements AutoCloseable {
  public static final String ACCESS_KEY = "floe-test-access";
  public static final String SECRET_KEY = "floe-test-secret";
  public static final String REGION = "us-east-1";

  private final BlobStoreContext store;
  private final Outage outage;
  private final S3Proxy proxy;
  private final Path bucketDir;
  private final String bucket;
  private final URI endpoint;

  private LoopbackS3Server(
      BlobStoreContext store, Outage outage, S3Proxy proxy, Path bucketDir, String bucket, URI endpoint) {
    this.store = store;
    this.outage = outage;
    this.proxy = proxy;
    this.bucketDir = bucketDir;
    this.bucket = bucket;
    this.endpoint = endpoint;
  }

  /** Starts a server keeping its objects under {@code baseDir}, with {@code bucket} created. */
  public static LoopbackS3Server start(Path baseDir, String bucket) throws Exception {
    Files.createDirectories(baseDir);
    Properties overrides = new Properties();
    overrides.setProperty(FilesystemConstants.PROPERTY_BASEDIR, baseDir.toAbsolutePath().toString());
    BlobStoreContext store =
        ContextBuilder.newBuilder("filesystem").overrides(overrides).build(BlobStoreContext.class);
    String host = InetAddress.getLoopbackAddress().getHostAddress();
    Outage outage = new Outage(store.getBlobStore());
    S3Proxy proxy =
        S3Proxy.builder()
            .blobStore(outage)
            .endpoint(URI.create("http://" + host + ":0"))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
            // The SDK sends checksum headers (x-amz-checksum-*) s3proxy does not know; the
            // payload stays covered by the request signature's SHA-256.
            .ignoreUnknownHeaders(true)
            .build();
    try {
      proxy.start(); // returns once Jetty listens
      store.getBlobStore().createContainerInLocation(null, bucket);
    } catch (Exception e) {
      proxy.stop();
      store.close();
      throw e;
    }
    URI endpoint = URI.create("http://" + host + ":" + proxy.getPort());
    return new LoopbackS3Server(store, outage, proxy, baseDir.resolve(bucket), bucket, endpoint);
  }

  /**
   * While {@code down}, every request for an object (read, write, delete, list, multipart) is
   * answered 503 Service Unavailable, as S3 answers when it sheds load: an outage as clients see it.
   */
  public void setDown(boolean down) {
    outage.readsDown = down;
    outage.writesDown = down;
  }

  /** While {@code down}, only writes and deletes are answered 503; reads and lists go through. */
  public void setWritesDown(boolean down) {
    outage.writesDown = down;
  }

  /** Requests answered 503 so far. */
  public int refusedRequests() {
    return outage.refused.get();
  }

  public URI endpoint() {
    return endpoint;
  }

  public String bucket() {
    return bucket;
  }

  /** {@code s3://<bucket>/<path>}. */
  public String location(String path) {
    return "s3://" + bucket + "/" + path;
  }

  /**
   * Catalog properties for Iceberg's {@code S3FileIO} against this server: the endpoint,
   * path-style addressing (a bucket on a host name would not resolve on loopback), the key pair, a
   * region (the SDK insists on one), and plain signed uploads instead of the SDK's default
   * streaming uploads with trailing checksums, which s3proxy 2.6 rejects.
   */
  public Map<String, String> fileIoProperties() {
    return Map.of(
        "io-impl", "org.apache.iceberg.aws.s3.S3FileIO",
        "s3.endpoint", endpoint.toString(),
        "s3.path-style-access", "true",
        "s3.chunked-encoding-enabled", "false",
        "s3.access-key-id", ACCESS_KEY,
        "s3.secret-access-key", SECRET_KEY,
        "client.region", REGION);
  }

  /**
   * Catalog properties for Iceberg's JDBC catalog on SQLite at {@code database}, its warehouse
   * ({@code s3://<bucket>/warehouse}) and metadata in this store through {@link #fileIoProperties()}.
   */
  public Map<String, String> jdbcCatalogProperties(Path database) {
    Map<String, String> props = new TreeMap<>(fileIoProperties());
    props.put("type", "jdbc");
    props.put("uri", "jdbc:sqlite:" + database);
    props.put("warehouse", location("warehouse"));
    props.put("jdbc.schema-version", "V1");
    return props;
  }

  /**
   * Every object in the bucket as {@code s3://} location -> size in bytes, read from the
   * server's folder (not through S3), so it shows what really reached the store.
   */
  public Map<String, Long> objects() {
    Map<String, Long> out = new TreeMap<>();
    try (Stream<Path> files = Files.walk(bucketDir)) {
      for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        String key = bucketDir.relativize(file).toString().replace(file.getFileSystem().getSeparator(), "/");
        out.put(location(key), Files.size(file));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  @Override
  public void close() throws Exception {
    try {
      proxy.stop();
    } finally {
      store.close();
    }
  }

  /** The store behind the server, refusing reads or writes while they are down. */
  private static final class Outage extends ForwardingBlobStore {
    volatile boolean readsDown;
    volatile boolean writesDown;
    final AtomicInteger refused = new AtomicInteger();

    Outage(BlobStore store) {
      super(store);
    }

    private void refuseIfDown() {
      refuseIf(readsDown);
    }

    private void refuseWriteIfDown() {
      refuseIf(writesDown);
    }

    private void refuseIf(boolean down) {
      if (down) {
        refused.incrementAndGet();
        throw new HttpResponseException("the test's outage", null,
            HttpResponse.builder().statusCode(503).message("Service Unavailable").build());
      }
    }

    @Override
    public PageSet<? extends StorageMetadata> list(String container, ListContainerOptions options) {
      refuseIfDown();
      return super.list(container, options);
    }

    @Override
    public boolean blobExists(String container, String name) {
      refuseIfDown();
      return super.blobExists(container, name);
    }

    @Override
    public String putBlob(String container, Blob blob) {
      refuseWriteIfDown();
      return super.putBlob(container, blob);
    }

    @Override
    public String putBlob(String container, Blob blob, PutOptions options) {
      refuseWriteIfDown();
      return super.putBlob(container, blob, options);
    }

    @Override
    public BlobMetadata blobMetadata(String container, String name) {
      refuseIfDown();
      return super.blobMetadata(container, name);
    }

    @Override
    public Blob getBlob(String container, String name) {
      refuseIfDown();
      return super.getBlob(container, name);
    }

    @Override
    public Blob getBlob(String container, String name, GetOptions options) {
      refuseIfDown();
      return super.getBlob(container, name, options);
    }

    @Override
    public void removeBlob(String container, String name) {
      refuseWriteIfDown();
      super.removeBlob(container, name);
    }

    @Override
    public void removeBlobs(String container, Iterable<String> names) {
      refuseWriteIfDown();
      super.removeBlobs(container, names);
    }

    @Override
    public MultipartUpload initiateMultipartUpload(String container, BlobMetadata blob, PutOptions options) {
      refuseWriteIfDown();
      return super.initiateMultipartUpload(container, blob, options);
    }

    @Override
    public MultipartPart uploadMultipartPart(MultipartUpload upload, int part, Payload payload) {
      refuseWriteIfDown();
      return super.uploadMultipartPart(upload, part, payload);
    }

    @Override
    public String completeMultipartUpload(MultipartUpload upload, List<MultipartPart> parts) {
      refuseWriteIfDown();
      return super.completeMultipartUpload(upload, parts);
    }
  }
}
