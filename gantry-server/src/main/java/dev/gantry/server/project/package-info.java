/**
 * Projects: a repository Gantry builds, named by a slug {@code gantry/<organization>/<name>} as CircleCI names its
 * projects. {@link dev.gantry.server.project.Projects} creates, finds and lists them;
 * {@link dev.gantry.server.project.ProjectRoutes} serves {@code /api/v2/project}. A project's repository is a git URL
 * or an absolute path to a directory on the server; its organization comes from the request, else from the URL's
 * owner, else it is {@code local}.
 *
 * <p>Every statement on {@code gantry.project} is in {@link dev.gantry.server.project.ProjectDao}, the pipeline
 * counter included.
 */
package dev.gantry.server.project;
