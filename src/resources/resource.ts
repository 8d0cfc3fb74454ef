import type { OmniMedia } from '../client.ts';

/** Base of the resource classes: each method maps to one endpoint of the service. */
export abstract class APIResource {
  protected readonly client: OmniMedia;

  constructor(client: OmniMedia) {
    this.client = client;
  }
}
