import type { AlertEventType, AlertSources } from '../../contract/index.ts';
import { CatalogueEventPublisher } from '../catalogue-event-publisher.ts';

/** One event as a {@link RecordingEventPublisher} keeps it. */
export type PublishedEvent = {
  readonly [Type in AlertEventType]: { readonly detailType: Type; readonly detail: AlertSources[Type] };
}[AlertEventType];

/** Keeps published events in memory (local runs and tests), where there is no EventBridge to send them to. */
export class RecordingEventPublisher extends CatalogueEventPublisher {
  readonly events: PublishedEvent[] = [];

  protected async publishEvents<Type extends AlertEventType>(
    type: Type,
    events: readonly AlertSources[Type][],
  ): Promise<void> {
    for (const detail of events) this.events.push({ detailType: type, detail } as PublishedEvent);
  }
}
