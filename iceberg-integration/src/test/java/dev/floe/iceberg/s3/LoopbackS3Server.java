package dev.floe.iceberg.s3;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.filesystem.reference.FilesystemConstants;

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
  private final S3Proxy proxy;
  private final Path bucketDir;
  private final String bucket;
  private final URI endpoint;

  private LoopbackS3Server(BlobStoreContext store, S3Proxy proxy, Path bucketDir, String bucket, URI endpoint) {
    this.store = store;
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
    S3Proxy proxy =
        S3Proxy.builder()
            .blobStore(store.getBlobStore())
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
    return new LoopbackS3Server(store, proxy, baseDir.resolve(bucket), bucket, endpoint);
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
}
