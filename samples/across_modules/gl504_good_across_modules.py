"""The good twin of `gl504_bad_across_modules.py`: the same loop over the steps, with the agent
of `stepping_agent.py` that calls its model directly on the one observation (no data pipeline
per call).
"""

import numpy as np

from stepping_agent import FastAgent

agent = FastAgent(n_actions=2)
observations = np.linspace(0.0, 1.0, 32, dtype=np.float32).reshape(8, 4)
actions = []
for observation in observations:
    actions.append(agent.choose_action(observation))
print(actions)
