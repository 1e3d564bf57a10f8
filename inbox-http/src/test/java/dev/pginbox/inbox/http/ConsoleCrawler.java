package dev.pginbox.inbox.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Follows every same-origin {@code href} and {@code src} of the console's pages with GET, breadth
 * first from {@code /}, up to a bound, and remembers what each URL answered. Attribute values are
 * read the way the console writes them: double-quoted and escaped with {@link Html#esc}.
 */
final class ConsoleCrawler {

  private static final Pattern LINK = Pattern.compile("\\b(?:href|src)=\"([^\"]*)\"");

  /** One URL the crawl fetched: its status, the page that linked it, and the start of its body. */
  record Visit(URI url, int status, URI linkedFrom, String body) {
    @Override
    public String toString() {
      String start = body.length() > 300 ? body.substring(0, 300) + "…" : body;
      return status + " " + url + " (linked from " + linkedFrom + "): " + start;
    }
  }

  private final HttpClient client = HttpClient.newHttpClient();
  private final URI origin;
  private final int maxUrls;

  ConsoleCrawler(URI origin, int maxUrls) {
    this.origin = origin;
    this.maxUrls = maxUrls;
  }

  /**
   * Every URL reached from {@code /} and the given raw paths with queries (pages only a form leads
   * to, such as search results), in the order fetched; links that are no URI answer 0.
   */
  List<Visit> crawl(String... starts) throws Exception {
    Map<URI, Visit> visits = new LinkedHashMap<>();
    Deque<URI[]> queue = new ArrayDeque<>();
    queue.add(new URI[] {origin.resolve("/"), null});
    for (String start : starts) {
      queue.add(new URI[] {origin.resolve(start), null});
    }
    while (!queue.isEmpty() && visits.size() < maxUrls) {
      URI[] next = queue.poll();
      URI url = next[0];
      if (visits.containsKey(url)) {
        continue;
      }
      HttpResponse<String> response =
          client.send(
              HttpRequest.newBuilder(url).GET().build(), HttpResponse.BodyHandlers.ofString());
      visits.put(url, new Visit(url, response.statusCode(), next[1], response.body()));
      boolean html =
          response.headers().firstValue("Content-Type").orElse("").startsWith("text/html");
      if (!html) {
        continue;
      }
      for (String href : links(response.body())) {
        URI target;
        try {
          target = url.resolve(new URI(href));
        } catch (Exception e) {
          visits.put(
              URI.create("invalid:" + visits.size()),
              new Visit(URI.create("invalid:" + visits.size()), 0, url, href));
          continue;
        }
        if (sameOrigin(target)) {
          queue.add(new URI[] {withoutFragment(target), url});
        }
      }
    }
    return new ArrayList<>(visits.values());
  }

  static List<String> links(String html) {
    List<String> links = new ArrayList<>();
    Matcher m = LINK.matcher(html);
    while (m.find()) {
      links.add(unescape(m.group(1)));
    }
    return links;
  }

  private static String unescape(String attribute) {
    return attribute
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
  }

  private boolean sameOrigin(URI target) {
    return "http".equals(target.getScheme())
        && origin.getHost().equals(target.getHost())
        && origin.getPort() == target.getPort();
  }

  private static URI withoutFragment(URI uri) {
    if (uri.getRawFragment() == null) {
      return uri;
    }
    String s = uri.toString();
    return URI.create(s.substring(0, s.indexOf('#')));
  }
}
