/**
 * Keeping what jobs leave behind only as long as it is useful: {@link dev.gantry.server.retention.RetentionSweeper}
 * deletes caches, workspace layers and artifacts past their
 * {@link dev.gantry.server.retention.RetentionSettings}, file first and index row after, so that a server running
 * for months does not fill its disk.
 */
package dev.gantry.server.retention;
