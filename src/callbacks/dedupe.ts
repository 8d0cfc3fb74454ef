/** The key of one delivery: the same task in the same status is the same news. */
export function deliveryKey(task: { task_id: string; status: string }): string {
  return `${task.task_id}\u0000${task.status}`;
}
