// The fleet suite (fleet-suite.ts) with node-redis as every instance's Redis client.
import { fleetSuite } from './fleet-suite.ts';

fleetSuite('node-redis');
