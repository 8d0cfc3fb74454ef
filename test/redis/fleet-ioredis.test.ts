// The fleet suite (fleet-suite.ts) with ioredis as every instance's Redis client.
import { fleetSuite } from './fleet-suite.ts';

fleetSuite('ioredis');
