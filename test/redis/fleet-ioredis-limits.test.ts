// The fleet suite (fleet-suite.ts), its limits part, with ioredis as every instance's Redis client.
import { fleetSuite } from './fleet-suite.ts';

fleetSuite('ioredis', 'limits');
