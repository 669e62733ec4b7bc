/**
 * Where the bytes jobs leave behind are kept: job output ({@link dev.gantry.server.storage.OutputStore}) and blobs
 * such as caches, workspace layers and artifacts ({@link dev.gantry.server.storage.BlobStore}). By default both are
 * files under {@code $GANTRY_HOME}, for one server per database. With {@code GANTRY_BLOB_STORE=s3://…}
 * ({@link dev.gantry.server.storage.S3Settings}) blobs go to an S3 bucket and output to the database
 * ({@link dev.gantry.server.storage.DatabaseOutputStore}), so several servers of one database share both
 * ({@link dev.gantry.server.storage.Storage} picks). The database keeps the blobs' index rows; callers write a blob
 * completely before they insert the row that points at it.
 *
 * <p>What belongs here: byte storage and the checks that keep an untrusted name inside its root
 * ({@link dev.gantry.server.storage.BlobName}). No HTTP; SQL only for output kept in the database.
 */
package dev.gantry.server.storage;
