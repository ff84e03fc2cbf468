/**
 * The JSON body of a webhook delivery (README: the webhook body), bounded to
 * MAX_WEBHOOK_BODY_BYTES. Past the bound, the message is cut, never sent whole: the `text` to its
 * first lines within a quarter of the bound (Slack shows at most 40,000 characters of it anyway),
 * the items halved until the body fits, and last the changes of the one subject left. `truncated`
 * says so, and the text says what was left out.
 */
import { chatText, type AlertMessage, type MessageItem } from './message.ts';
import type { Cadence, Delivery } from './types.ts';

export const MAX_WEBHOOK_BODY_BYTES = 512 * 1024;
const TEXT_BUDGET_BYTES = MAX_WEBHOOK_BODY_BYTES / 4;

/** Items serialised once per message (subscriptions sharing a filter share the message). */
const itemsJson = new WeakMap<AlertMessage, string>();

/**
 * The first lines of `text` within `budget` UTF-8 bytes (a first line longer than that is cut
 * between characters), and whether anything was cut.
 */
function firstLines(text: string, budget: number): { text: string; cut: boolean } {
  if (Buffer.byteLength(text) <= budget) return { text, cut: false };
  const kept: string[] = [];
  let bytes = 0;
  for (const line of text.split('\n')) {
    const size = Buffer.byteLength(line) + 1;
    if (bytes + size > budget) {
      if (kept.length === 0) kept.push(Array.from(line).slice(0, Math.floor(budget / 4)).join(''));
      break;
    }
    kept.push(line);
    bytes += size;
  }
  return { text: kept.join('\n'), cut: true };
}

export function webhookBody(message: AlertMessage, delivery: Delivery, cadence: Cadence): string {
  const head = (text: string, truncated: boolean) =>
    JSON.stringify({
      type: 'changes',
      delivery_id: delivery.id,
      cadence,
      period: delivery.periodKey,
      range: { after: delivery.rangeFrom, until: delivery.rangeTo },
      text,
      total_changes: message.totalChanges,
      total_subjects: message.totalSubjects,
      truncated,
    }).slice(0, -1);
  let json = itemsJson.get(message);
  if (json === undefined) itemsJson.set(message, (json = JSON.stringify(message.items)));
  const body = `${head(chatText(message.text), message.totalSubjects > message.items.length)},"items":${json}}`;
  if (Buffer.byteLength(body) <= MAX_WEBHOOK_BODY_BYTES) return body;

  // Past the bound. Halving only the items left the text whole: a digest whose text alone was
  // past the bound went out at 1.2 MB, with one item.
  const text = firstLines(chatText(message.text), TEXT_BUDGET_BYTES);
  let items: MessageItem[] = message.items;
  let changesCut = false;
  const cut = () => {
    const left = message.totalSubjects - items.length;
    const note = [text.cut ? 'this text is cut short' : '', left > 0 ? `${left} subjects are left out` : '', changesCut ? 'some changes of the last subject are left out' : ''].filter(Boolean);
    return `${head(`${text.text}\n${chatText(`(To keep this message small, ${note.join('; ')}: see the change feed.)`)}`, true)},"items":${JSON.stringify(items)}}`;
  };
  let cutBody = cut();
  while (Buffer.byteLength(cutBody) > MAX_WEBHOOK_BODY_BYTES) {
    if (items.length > 1) {
      items = items.slice(0, Math.floor(items.length / 2));
    } else if (items.length === 1 && items[0]!.changes.length > 1) {
      items = [{ ...items[0]!, changes: items[0]!.changes.slice(0, Math.floor(items[0]!.changes.length / 2)) }];
      changesCut = true;
    } else if (items.length === 1) {
      items = [];
    } else {
      break; // the text alone is within a quarter of the bound: not reached
    }
    cutBody = cut();
  }
  return cutBody;
}
