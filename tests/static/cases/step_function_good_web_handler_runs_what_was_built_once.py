import tensorflow as tf

tf1 = tf.compat.v1

from fastapi import FastAPI
app = FastAPI()
sess = tf1.Session()
answer = tf.constant("hi")
@app.get("/predict")
def predict():
    return sess.run(answer)
