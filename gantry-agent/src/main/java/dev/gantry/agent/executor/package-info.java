/**
 * Where a task's processes run and its files live. An {@link dev.gantry.agent.executor.Executor} opens one
 * {@link dev.gantry.agent.executor.Sandbox} per task: the job's own containers
 * ({@link dev.gantry.agent.executor.docker.DockerExecutor}, the default) or the agent's host shell
 * ({@link dev.gantry.agent.executor.HostShellExecutor}, only when the agent is told {@code --executor shell}). Steps
 * start processes through the sandbox and move files through its {@code read} and {@code write}, so they never touch
 * the job's file system directly; the host keeps only the task's own 0700 directory. Also here: the in-job
 * {@code circleci} command ({@link dev.gantry.agent.executor.InCircleci}), the tar entries every transfer uses
 * ({@link dev.gantry.agent.executor.Tars}) and the host's process-tree killer. See docs/executors.md.
 */
package dev.gantry.agent.executor;
