/**
 * Where the bytes jobs leave behind are kept: job output ({@link dev.gantry.server.storage.OutputStore}) and blobs
 * such as caches, workspace layers and artifacts ({@link dev.gantry.server.storage.BlobStore}). Today both are files
 * under {@code $GANTRY_HOME}; the interfaces are what an object store implements later. The database keeps only index
 * rows; callers write a blob completely before they insert the row that points at it.
 *
 * <p>What belongs here: byte storage and the checks that keep an untrusted name inside its root
 * ({@link dev.gantry.server.storage.BlobName}). No HTTP, no SQL.
 */
package dev.gantry.server.storage;
