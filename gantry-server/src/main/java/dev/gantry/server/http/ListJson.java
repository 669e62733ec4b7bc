package dev.gantry.server.http;

import java.util.List;

/**
 * One page of a list as the API shows it: {@code {"items": [...], "next_page_token": "..."}}, the token null on the
 * last page.
 */
public record ListJson<T>(List<T> items, String nextPageToken) {
}
