/**
 * What an operator does to the server's own machinery, under {@code /api/v2/admin} behind the admin token: the
 * durable queues' depths, dead letters, replay, pause, resume with a ramp, and limits
 * ({@link dev.gantry.server.admin.QueueAdminRoutes}); dispatch's self-pause, hold, resume and ramp
 * ({@link dev.gantry.server.admin.DispatchRoutes}).
 */
package dev.gantry.server.admin;
